import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  ConfirmDialog,
  describeError,
  Empty,
  ErrorMessage,
  Link,
  Loading,
  PageHeader,
  Pager,
  SecretOnce,
  StatusBadge,
  TableHead,
  useLoad,
} from '../components.tsx';
import { formatTime, ms } from '../format.ts';
import { type Delivery, EVENT_TYPES, type Webhook } from '../types.ts';

const PAGE = 20;

function Deliveries(props: { webhookId: string; version: number }) {
  const [offset, setOffset] = useState(0);
  const { data, error, loading, reload } = useLoad(
    () =>
      api.get<{ deliveries: Delivery[]; hasMore: boolean }>(`/v1/webhooks/${props.webhookId}/deliveries`, {
        limit: PAGE,
        offset,
      }),
    [offset, props.version],
  );
  return (
    <div class="card table-card">
      <div class="card-head">
        <h2>Delivery log</h2>
        <button type="button" class="button small" onClick={reload}>
          Refresh
        </button>
      </div>
      {error ? <ErrorMessage error={error} retry={reload} /> : null}
      {loading && !data && <Loading />}
      {data && data.deliveries.length === 0 && (
        <Empty title="No deliveries yet">Send a test event, or wait for the next decision event.</Empty>
      )}
      {data && data.deliveries.length > 0 && (
        <>
          <table class="table">
            <caption class="sr-only">Delivery attempts, newest first</caption>
            <TableHead
              columns={[
                'Time',
                'Event',
                { label: 'Attempt', narrow: true },
                'Status',
                'Response',
                { label: 'Duration', narrow: true },
                { label: 'Error', narrow: true },
              ]}
            />
            <tbody>
              {data.deliveries.map((d) => (
                <tr key={d.id}>
                  <td class="nowrap">{formatTime(d.timestamp)}</td>
                  <td>{d.eventType}</td>
                  <td class="hide-narrow num">{d.attempt}</td>
                  <td>
                    <StatusBadge ok={d.status === 'succeeded'}>{d.status}</StatusBadge>
                  </td>
                  <td class="num">{d.responseCode ?? '—'}</td>
                  <td class="hide-narrow num">{ms(d.durationMs)}</td>
                  <td class="hide-narrow">{d.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            offset={offset}
            limit={PAGE}
            hasMore={data.hasMore}
            shown={data.deliveries.length}
            onPage={setOffset}
          />
        </>
      )}
    </div>
  );
}

export function WebhookPage(props: { webhookId: string }) {
  const id = encodeURIComponent(props.webhookId);
  const { data: w, error, reload } = useLoad(() => api.get<Webhook>(`/v1/webhooks/${id}`), [id]);
  const [eventType, setEventType] = useState(EVENT_TYPES[0]!);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [version, setVersion] = useState(0);
  if (error) return <ErrorMessage error={error} retry={reload} />;
  if (!w) return <Loading />;

  const run = (work: Promise<unknown>, done: (result: never) => void) => {
    setBusy(true);
    setNotice(null);
    work
      .then(done as (r: unknown) => void, (e: unknown) => setNotice({ ok: false, text: describeError(e) }))
      .finally(() => {
        setBusy(false);
        setVersion((v) => v + 1);
      });
  };
  const toggle = () =>
    run(api.patch(`/v1/webhooks/${id}`, { enabled: !w.enabled }), () => {
      setNotice({ ok: true, text: w.enabled ? 'Endpoint disabled.' : 'Endpoint enabled.' });
      reload();
    });
  const test = (event: Event) => {
    event.preventDefault();
    run(
      api.post(`/v1/webhooks/${id}/test`, { eventType }),
      (r: { success: boolean; responseCode: number | null }) =>
        setNotice({
          ok: r.success,
          text: r.success
            ? `Test event delivered (HTTP ${r.responseCode}).`
            : `Test event failed${r.responseCode ? ` (HTTP ${r.responseCode})` : ''}; see the delivery log.`,
        }),
    );
  };
  const rotate = () => {
    setConfirmRotate(false);
    run(api.post<Webhook>(`/v1/webhooks/${id}/rotate-secret`), (r: Webhook) => setSecret(r.secret ?? null));
  };
  return (
    <section>
      <p class="crumbs">
        <Link to="/webhooks">Webhooks</Link> / <span>{w.id}</span>
      </p>
      <PageHeader
        title="Webhook endpoint"
        description={<code class="break">{w.url}</code>}
        actions={<StatusBadge ok={w.enabled}>{w.enabled ? 'Enabled' : 'Disabled'}</StatusBadge>}
      />
      {w.disabledReason && <p class="notice warning">Disabled by the service: {w.disabledReason}</p>}
      {notice && (
        <p class={`notice ${notice.ok ? 'success' : 'error'}`} role={notice.ok ? 'status' : 'alert'}>
          {notice.text}
        </p>
      )}
      {secret && (
        <SecretOnce title="New signing secret:" value={secret}>
          The previous secret keeps signing alongside it for 24 hours.
        </SecretOnce>
      )}
      <div class="grid-2">
        <div class="card">
          <h2>Settings</h2>
          <dl class="facts">
            <div>
              <dt>Events</dt>
              <dd>{w.events.join(', ')}</dd>
            </div>
            <div>
              <dt>Description</dt>
              <dd>{w.description ?? '—'}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatTime(w.createdAt)}</dd>
            </div>
          </dl>
          <div class="form-actions start">
            <button type="button" class="button" disabled={busy} onClick={toggle}>
              {w.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" class="button" disabled={busy} onClick={() => setConfirmRotate(true)}>
              Rotate secret
            </button>
          </div>
        </div>
        <form class="card" onSubmit={test}>
          <h2>Send a test event</h2>
          <p class="muted">One signed event, sent now; the attempt is logged below.</p>
          <div class="inline-form">
            <label class="field">
              <span>Event type</span>
              <select value={eventType} onChange={(e) => setEventType(e.currentTarget.value)}>
                {EVENT_TYPES.map((e) => (
                  <option key={e} value={e}>
                    {e}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" class="button primary" disabled={busy}>
              Send test
            </button>
          </div>
        </form>
      </div>
      <Deliveries webhookId={id} version={version} />
      <ConfirmDialog
        open={confirmRotate}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onConfirm={rotate}
        onCancel={() => setConfirmRotate(false)}
      >
        <p>A new secret is issued and shown once. Events are signed with both secrets for 24 hours.</p>
      </ConfirmDialog>
    </section>
  );
}
