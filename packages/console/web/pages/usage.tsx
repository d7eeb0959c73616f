import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorMessage, Loading, PageHeader, useLoad } from '../components.tsx';
import { count, formatDate, percent } from '../format.ts';
import type { Usage } from '../types.ts';
import { KeyUsageCard } from './usage-keys.tsx';

function months(): string[] {
  const now = new Date();
  return Array.from({ length: 12 }, (_, i) => {
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    return at.toISOString().slice(0, 7);
  });
}

export function UsagePage() {
  const [month, setMonth] = useState(months()[0]!);
  const { data, error, loading, reload } = useLoad(() => api.get<Usage>('/v1/usage', { month }), [month]);
  const used = data?.monthlyQuota ? Math.min(data.evaluations / data.monthlyQuota, 1) : 0;
  const trialEnded = data?.trialEndsAt ? Date.parse(data.trialEndsAt) <= Date.now() : false;
  return (
    <section>
      <PageHeader
        title="Usage"
        description="Evaluations counted against the monthly quota: a text, a batch item, an image and a video frame each count one."
        actions={
          <label class="field inline">
            <span>Month</span>
            <select value={month} onChange={(e) => setMonth(e.currentTarget.value)}>
              {months().map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
        }
      />
      {error ? <ErrorMessage error={error} retry={reload} /> : null}
      {loading && !data && <Loading />}
      {data && (
        <div class={`grid-2 ${loading ? 'stale' : ''}`}>
          <div class="card">
            <h2>Quota</h2>
            <p class="kpi-value">
              {count(data.evaluations)}
              <span class="muted kpi-of">
                {' '}
                / {data.monthlyQuota === null ? 'unlimited' : count(data.monthlyQuota)}
              </span>
            </p>
            {data.monthlyQuota !== null ? (
              <>
                <div class="meter" aria-hidden="true">
                  <span class={used >= 0.9 ? 'high' : undefined} style={{ width: `${used * 100}%` }} />
                </div>
                <p class="muted">
                  {percent(used)} used · {count(data.remaining ?? 0)} left in {data.month}
                </p>
              </>
            ) : (
              <p class="muted">This account has no monthly quota.</p>
            )}
            <h3>Trial</h3>
            <p>
              {data.trialEndsAt === null
                ? 'No trial: the account is not time-limited.'
                : trialEnded
                  ? `The trial ended on ${formatDate(data.trialEndsAt)}; evaluations are refused (402 TRIAL_EXPIRED).`
                  : `The trial ends on ${formatDate(data.trialEndsAt)}.`}
            </p>
          </div>
          <div class="card">
            <h2>By content type</h2>
            <table class="table compact">
              <caption class="sr-only">Evaluations by content type</caption>
              <tbody>
                <tr>
                  <th scope="row">Texts</th>
                  <td class="num">{count(data.breakdown.text)}</td>
                </tr>
                <tr>
                  <th scope="row">Images</th>
                  <td class="num">{count(data.breakdown.image)}</td>
                </tr>
                <tr>
                  <th scope="row">Video frames</th>
                  <td class="num">{count(data.breakdown.videoFrames)}</td>
                </tr>
                <tr class="total">
                  <th scope="row">Total</th>
                  <td class="num">{count(data.evaluations)}</td>
                </tr>
              </tbody>
            </table>
          </div>
        </div>
      )}
      <KeyUsageCard month={month} />
    </section>
  );
}
