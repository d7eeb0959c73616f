import { api, withQuery } from '../api.ts';
import { ErrorMessage, Link, Loading, StatusBadge, TableHead, useLoad } from '../components.tsx';
import { count } from '../format.ts';
import type { KeyUsage } from '../types.ts';

/** The decisions of one key in a UTC month, as the Decisions page filters them. */
function decisionsOf(keyId: string, month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return withQuery('/decisions', {
    keyId,
    from: new Date(Date.UTC(year, m - 1, 1)).toISOString(),
    to: new Date(Date.UTC(year, m, 1)).toISOString(),
  });
}

/** Checks per API key in a month (GET /v1/usage/keys, admin; the console signs in with admin keys only). */
export function KeyUsageCard(props: { month: string }) {
  const { data, error, loading, reload } = useLoad(
    () => api.get<KeyUsage>('/v1/usage/keys', { month: props.month }),
    [props.month],
  );
  return (
    <div class={`card table-card ${loading && data ? 'stale' : ''}`}>
      <div class="card-head">
        <h2 id="usage-by-key">By API key</h2>
        {data && (
          <span class="muted small">
            {count(data.checks)} checks in {data.month}
          </span>
        )}
      </div>
      {error ? (
        <div class="card-note">
          <ErrorMessage error={error} retry={reload} />
        </div>
      ) : null}
      {loading && !data && <Loading />}
      {data && (
        <>
          <table class="table" aria-labelledby="usage-by-key">
            <TableHead
              columns={[
                'Key',
                'Key prefix',
                { label: 'Texts', narrow: true },
                { label: 'Images', narrow: true },
                { label: 'Videos', narrow: true },
                { label: 'Multi-modal', narrow: true },
                'Checks',
              ]}
            />
            <tbody>
              {data.keys.map((k) => (
                <tr key={k.keyId}>
                  <td>
                    {k.name ?? <span class="muted">Another account's key</span>}{' '}
                    {k.revoked && <StatusBadge ok={false}>Revoked</StatusBadge>}
                  </td>
                  <td class="nowrap">
                    <code>{k.prefix ? `${k.prefix}…${k.last4}` : k.keyId}</code>
                  </td>
                  <td class="num hide-narrow">{count(k.byContentType.text)}</td>
                  <td class="num hide-narrow">{count(k.byContentType.image)}</td>
                  <td class="num hide-narrow">{count(k.byContentType.video)}</td>
                  <td class="num hide-narrow">{count(k.byContentType.multimodal)}</td>
                  <td class="num">
                    {k.checks > 0 ? (
                      <Link to={decisionsOf(k.keyId, data.month)}>{count(k.checks)}</Link>
                    ) : (
                      '0'
                    )}
                  </td>
                </tr>
              ))}
              {data.unattributed > 0 && (
                <tr>
                  <td colSpan={2} class="muted">
                    Stored before decisions recorded their key
                  </td>
                  <td class="hide-narrow" colSpan={4} />
                  <td class="num">{count(data.unattributed)}</td>
                </tr>
              )}
            </tbody>
          </table>
          <p class="muted small card-note">
            A check is one stored decision, whatever it held (a text, an image, a batch item, a whole video);
            the quota above counts evaluations. Decisions deleted by retention are not counted.
          </p>
        </>
      )}
    </div>
  );
}
