import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  ActionBadge,
  Empty,
  ErrorMessage,
  Link,
  Loading,
  PageHeader,
  Pager,
  TableHead,
  useLoad,
} from '../components.tsx';
import { formatTime, label, truncate } from '../format.ts';
import { navigate } from '../router.ts';
import { ACTIONS, CATEGORIES, CONTENT_TYPES, type DecisionPage, type Policy } from '../types.ts';

const FILTERS = [
  'q',
  'action',
  'policyId',
  'category',
  'contentType',
  'from',
  'to',
  'userId',
  'keyId',
] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;
const PAGE = 25;

/** datetime-local values are local wall-clock times; the API takes ISO 8601 instants. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
const toLocal = (iso: string | undefined) => {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/**
 * The filter form is uncontrolled: its fields start from the URL's filters (the form is remounted when the URL
 * changes) and are read with FormData on submit. A `value` prop would make Preact write the URL's value back into
 * the field on every re-render, wiping what a person typed while the policies or decisions were still loading.
 */
function Select(props: {
  name: string;
  label: string;
  value: string | undefined;
  options: string[];
  all: string;
  format?: (v: string) => string;
}) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <select name={props.name}>
        <option value="" selected={!props.value}>
          {props.all}
        </option>
        {props.options.map((o) => (
          <option key={o} value={o} selected={o === props.value}>
            {props.format ? props.format(o) : o}
          </option>
        ))}
      </select>
    </label>
  );
}

export function DecisionsPage(props: { query: URLSearchParams }) {
  const filters: Filters = {};
  for (const key of FILTERS) {
    const value = props.query.get(key);
    if (value) filters[key] = value;
  }
  const offset = Number(props.query.get('offset') ?? 0) || 0;
  const key = props.query.toString();
  const policies = useLoad(() => api.get<{ policies: Policy[] }>('/v1/policies'), []);
  const { data, error, loading, reload } = useLoad(
    () => api.get<DecisionPage>('/v1/decisions', { ...filters, limit: PAGE, offset }),
    [key],
  );
  const [formKey, setFormKey] = useState(0);

  const go = (next: Filters, nextOffset = 0) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v) params.set(k, v);
    if (nextOffset) params.set('offset', String(nextOffset));
    const text = params.toString();
    navigate(`/decisions${text ? `?${text}` : ''}`);
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next: Filters = {};
    for (const k of FILTERS) {
      const value = String(form.get(k) ?? '').trim();
      if (value) next[k] = k === 'from' || k === 'to' ? toIso(value) : value;
    }
    go(next);
  };
  const active = Object.keys(filters).length > 0;

  return (
    <section>
      <PageHeader title="Decisions" description="Every stored decision of this account, newest first." />
      <form class="card filters" onSubmit={submit} key={`${key}-${formKey}`} aria-label="Filter decisions">
        <label class="field wide-narrow">
          <span>Search content</span>
          <input
            type="search"
            name="q"
            defaultValue={filters.q ?? ''}
            placeholder="every word, any language"
            maxLength={256}
          />
        </label>
        <Select name="action" label="Action" value={filters.action} options={ACTIONS} all="Any action" />
        <Select
          name="policyId"
          label="Policy"
          value={filters.policyId}
          options={(policies.data?.policies ?? []).map((p) => p.policyId)}
          all="Any policy"
        />
        <Select
          name="category"
          label="Category triggered"
          value={filters.category}
          options={CATEGORIES}
          all="Any"
          format={label}
        />
        <Select
          name="contentType"
          label="Content type"
          value={filters.contentType}
          options={CONTENT_TYPES}
          all="Any type"
        />
        <label class="field wide-narrow">
          <span>From</span>
          <input type="datetime-local" name="from" defaultValue={toLocal(filters.from)} />
        </label>
        <label class="field wide-narrow">
          <span>To</span>
          <input type="datetime-local" name="to" defaultValue={toLocal(filters.to)} />
        </label>
        <label class="field wide-narrow">
          <span>User ID</span>
          <input
            type="text"
            name="userId"
            defaultValue={filters.userId ?? ''}
            placeholder="metadata.userId"
            maxLength={256}
          />
        </label>
        <label class="field wide-narrow">
          <span>API key</span>
          <input
            type="text"
            name="keyId"
            defaultValue={filters.keyId ?? ''}
            placeholder="key_…"
            maxLength={256}
          />
        </label>
        <div class="filter-actions">
          <button type="submit" class="button primary">
            Apply filters
          </button>
          {active && (
            <button
              type="button"
              class="button"
              onClick={() => {
                setFormKey((k) => k + 1);
                go({});
              }}
            >
              Clear
            </button>
          )}
        </div>
      </form>
      {error ? <ErrorMessage error={error} retry={reload} /> : null}
      {loading && !data && <Loading />}
      {data && data.decisions.length === 0 && (
        <Empty title={active ? 'No decision matches these filters' : 'No decisions yet'}>
          {active ? (
            <p>Widen the time range or clear a filter.</p>
          ) : (
            <p>
              Decisions are stored for every check. Send one with <code>POST /v1/check</code> and it appears
              here.
            </p>
          )}
        </Empty>
      )}
      {data && data.decisions.length > 0 && (
        <div class={`card table-card ${loading ? 'stale' : ''}`}>
          <table class="table">
            <caption class="sr-only">Decisions</caption>
            <TableHead
              columns={[
                'Time',
                'Action',
                'Content',
                { label: 'Type', narrow: true },
                { label: 'Policy', narrow: true },
                { label: 'Triggered', narrow: true },
              ]}
            />
            <tbody>
              {data.decisions.map((d) => (
                <tr key={d.decisionId}>
                  <td class="nowrap">
                    <Link to={`/decisions/${encodeURIComponent(d.decisionId)}`}>
                      {formatTime(d.timestamp)}
                    </Link>
                  </td>
                  <td class="nowrap">
                    <ActionBadge action={d.action} />
                    {d.review && d.effectiveAction !== d.action && (
                      <>
                        {' → '}
                        <ActionBadge action={d.effectiveAction!} />
                        <span class="sr-only"> after human review</span>
                      </>
                    )}
                  </td>
                  <td class="content-cell">{truncate(d.content, 90)}</td>
                  <td class="hide-narrow">{d.contentType}</td>
                  <td class="hide-narrow">{d.policyId}</td>
                  <td class="hide-narrow">
                    {d.categories
                      .filter((c) => c.triggered)
                      .map((c) => label(c.category))
                      .join(', ') || '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            offset={data.offset}
            limit={PAGE}
            hasMore={data.hasMore}
            shown={data.decisions.length}
            onPage={(next) => go(filters, next)}
          />
        </div>
      )}
    </section>
  );
}
