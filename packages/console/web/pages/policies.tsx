import { api } from '../api.ts';
import { Empty, ErrorMessage, Link, Loading, PageHeader, TableHead, useLoad } from '../components.tsx';
import { formatTime, label } from '../format.ts';
import { navigate } from '../router.ts';
import type { Policy } from '../types.ts';

export function PoliciesPage() {
  const { data, error, loading, reload } = useLoad(() => api.get<{ policies: Policy[] }>('/v1/policies'), []);
  const own = data?.policies.filter((p) => !p.builtin) ?? [];
  return (
    <section>
      <PageHeader
        title="Policies"
        description="Thresholds and actions per category, written as YAML. Every save is a new version."
        actions={
          <button type="button" class="button primary" onClick={() => navigate('/policies/new')}>
            New policy
          </button>
        }
      />
      {error ? <ErrorMessage error={error} retry={reload} /> : null}
      {loading && !data && <Loading />}
      {data && (
        <div class="card table-card">
          <table class="table">
            <caption class="sr-only">Policies</caption>
            <TableHead
              columns={[
                'Policy ID',
                'Name',
                { label: 'Categories', narrow: true },
                'Version',
                { label: 'Updated', narrow: true },
              ]}
            />
            <tbody>
              {data.policies.map((p) => (
                <tr key={p.policyId}>
                  <td class="nowrap">
                    <Link to={`/policies/${encodeURIComponent(p.policyId)}`}>{p.policyId}</Link>{' '}
                    {p.builtin && <span class="badge">built-in</span>}
                  </td>
                  <td>{p.name}</td>
                  <td class="hide-narrow">{Object.keys(p.categories).map(label).join(', ')}</td>
                  <td class="num">{p.version}</td>
                  <td class="hide-narrow">{p.builtin ? '—' : formatTime(p.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {own.length === 0 && (
            <Empty title="You have no policies of your own yet">
              <p>
                The built-in policies above work as they are. <Link to="/policies/new">Write your own</Link>{' '}
                to choose thresholds and actions, or open a built-in one and save a copy.
              </p>
            </Empty>
          )}
        </div>
      )}
    </section>
  );
}
