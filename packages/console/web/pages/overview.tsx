import { useMemo, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { type Series, TimeChart } from '../chart.tsx';
import { Empty, ErrorMessage, Link, Loading, PageHeader, useLoad } from '../components.tsx';
import { count, label, ms, percent } from '../format.ts';
import { ACTIONS, type Stats } from '../types.ts';

const RANGES = [
  { id: 'hour', label: 'Last hour', ms: 3_600_000, bucket: 'minute' },
  { id: 'day', label: 'Last day', ms: 86_400_000, bucket: 'hour' },
  { id: 'month', label: 'Last 30 days', ms: 30 * 86_400_000, bucket: 'day' },
] as const;

const ACTION_COLORS: Record<string, string> = {
  allow: '#1f8a4c',
  warn: '#b7791f',
  flag: '#c05621',
  block: '#c53030',
};
const CATEGORY_COLORS = [
  '#3142c6',
  '#c53030',
  '#1f8a4c',
  '#b7791f',
  '#805ad5',
  '#d53f8c',
  '#2b6cb0',
  '#718096',
  '#dd6b20',
];

function Kpi(props: { label: string; value: string; hint?: string }) {
  return (
    <div class="kpi">
      <span class="kpi-label">{props.label}</span>
      <span class="kpi-value">{props.value}</span>
      {props.hint && <span class="muted small">{props.hint}</span>}
    </div>
  );
}

function ActionMix(props: { actions: Record<string, number>; total: number }) {
  return (
    <div>
      <div class="mix-bar" aria-hidden="true">
        {ACTIONS.filter((a) => props.actions[a]! > 0).map((a) => (
          <span key={a} class={`mix-${a}`} style={{ width: `${(props.actions[a]! / props.total) * 100}%` }} />
        ))}
      </div>
      <ul class="mix-legend">
        {ACTIONS.map((a) => (
          <li key={a}>
            <span class={`dot mix-${a}`} aria-hidden="true" />
            {a} <strong>{count(props.actions[a] ?? 0)}</strong>{' '}
            <span class="muted">({percent(props.total ? (props.actions[a] ?? 0) / props.total : 0)})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function OverviewPage() {
  const [range, setRange] = useState<(typeof RANGES)[number]>(RANGES[1]);
  const { data, error, loading, reload } = useLoad(() => {
    const to = new Date();
    return api.get<Stats>('/v1/stats', {
      from: new Date(to.getTime() - range.ms).toISOString(),
      to: to.toISOString(),
      bucket: range.bucket,
    });
  }, [range]);

  const charts = useMemo(() => {
    if (!data) return null;
    const times = data.buckets.map((b) => Date.parse(b.start) / 1000);
    const volume: Series[] = ACTIONS.map((a) => ({
      label: a,
      color: ACTION_COLORS[a]!,
      values: data.buckets.map((b) => b.actions[a]),
    }));
    const rates: Series[] = [
      {
        label: 'Flag rate',
        color: '#c05621',
        values: data.buckets.map((b) => (b.count ? b.flagRate : null)),
      },
      {
        label: 'Block rate',
        color: '#c53030',
        values: data.buckets.map((b) => (b.count ? b.blockRate : null)),
      },
    ];
    const latency: Series[] = [
      { label: 'p50', color: '#3142c6', values: data.buckets.map((b) => b.latencyP50) },
      { label: 'p99', color: '#805ad5', values: data.buckets.map((b) => b.latencyP99) },
    ];
    const names = Object.keys(data.totals.categories).sort(
      (a, b) => data.totals.categories[b]! - data.totals.categories[a]!,
    );
    const categories: Series[] = names.map((name, i) => ({
      label: label(name),
      color: CATEGORY_COLORS[i % CATEGORY_COLORS.length]!,
      values: data.buckets.map((b) => (b.count ? (b.categories[name] ?? 0) / b.count : null)),
    }));
    return { times, volume, rates, latency, categories, names };
  }, [data]);

  const totals = data?.totals;
  return (
    <section>
      <PageHeader
        title="Overview"
        description="Volume, outcomes and speed of this account's decisions."
        actions={
          <fieldset class="segmented">
            <legend class="sr-only">Time range</legend>
            {RANGES.map((r) => (
              <button
                key={r.id}
                type="button"
                class="segment"
                aria-pressed={r.id === range.id}
                onClick={() => setRange(r)}
              >
                {r.label}
              </button>
            ))}
          </fieldset>
        }
      />
      {error ? <ErrorMessage error={error} retry={reload} /> : null}
      {loading && !data && <Loading />}
      {totals && charts && (
        <div class={loading ? 'stale' : undefined}>
          <div class="kpis">
            <Kpi label="Decisions" value={count(totals.count)} />
            <Kpi
              label="Flag rate"
              value={percent(totals.flagRate)}
              hint={`${count(totals.flagged)} flagged`}
            />
            <Kpi
              label="Block rate"
              value={percent(totals.blockRate)}
              hint={`${count(totals.actions.block)} blocked`}
            />
            <Kpi label="Latency p50" value={ms(totals.latencyP50)} />
            <Kpi label="Latency p99" value={ms(totals.latencyP99)} />
          </div>
          {totals.count === 0 ? (
            <Empty title={`No decisions in the ${range.label.toLowerCase()}`}>
              <p>
                Send content to <code>POST /v1/check</code> with an API key (see the{' '}
                <a href="/docs">API docs</a>); decisions appear here as they are made.{' '}
                <Link to="/keys">Create a key</Link> for your application.
              </p>
            </Empty>
          ) : (
            <>
              <div class="grid-mix">
                <div class="card">
                  <h2>Action mix</h2>
                  <ActionMix actions={totals.actions} total={totals.count} />
                  <p class="muted small">
                    <Link to="/decisions?action=block">Blocked decisions</Link> ·{' '}
                    <Link to="/decisions?action=flag">Flagged decisions</Link>
                  </p>
                </div>
                <div class="card">
                  <h2>Decisions over time</h2>
                  <TimeChart
                    label="Decisions per interval by action"
                    times={charts.times}
                    series={charts.volume}
                  />
                </div>
              </div>
              <div class="grid-2">
                <div class="card">
                  <h2>Flag and block rates</h2>
                  <TimeChart
                    label="Flag and block rates over time"
                    times={charts.times}
                    series={charts.rates}
                    format={(v) => `${Math.round(v * 100)}%`}
                  />
                </div>
                <div class="card">
                  <h2>Latency</h2>
                  <TimeChart
                    label="Latency p50 and p99 over time"
                    times={charts.times}
                    series={charts.latency}
                    format={ms}
                  />
                </div>
                <div class="card span-2">
                  <h2>Category trigger rates</h2>
                  {charts.names.length === 0 ? (
                    <p class="muted">No category triggered in this range.</p>
                  ) : (
                    <>
                      <TimeChart
                        label="Share of decisions in which each category triggered"
                        times={charts.times}
                        series={charts.categories}
                        format={(v) => `${Math.round(v * 100)}%`}
                      />
                      <table class="table compact">
                        <caption class="sr-only">Triggers per category in the range</caption>
                        <thead>
                          <tr>
                            <th scope="col">Category</th>
                            <th scope="col">Triggered</th>
                            <th scope="col">Rate</th>
                          </tr>
                        </thead>
                        <tbody>
                          {charts.names.map((name) => (
                            <tr key={name}>
                              <td>
                                <Link to={`/decisions?category=${name}`}>{label(name)}</Link>
                              </td>
                              <td>{count(totals.categories[name]!)}</td>
                              <td>{percent(totals.categories[name]! / totals.count)}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </>
                  )}
                </div>
              </div>
            </>
          )}
        </div>
      )}
    </section>
  );
}
