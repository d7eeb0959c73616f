import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  ActionBadge,
  CopyButton,
  describeError,
  ErrorMessage,
  Link,
  Loading,
  PageHeader,
  useLoad,
} from '../components.tsx';
import { DecisionBody, DecisionFacts, ReviewSummary } from '../decision-view.tsx';
import { ScoreTable } from '../scores.tsx';
import type { Decision, Policy } from '../types.ts';

function Replay(props: { decision: Decision }) {
  const policies = useLoad(() => api.get<{ policies: Policy[] }>('/v1/policies'), []);
  const [policyId, setPolicyId] = useState('');
  const [state, setState] = useState<{ busy?: boolean; error?: string; result?: Decision }>({});
  const options = (policies.data?.policies ?? []).filter((p) => p.policyId !== props.decision.policyId);
  const chosen = policyId || options[0]?.policyId || '';
  const replay = (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    api
      .post<Decision>(`/v1/decisions/${encodeURIComponent(props.decision.decisionId)}/replay`, {
        policyId: chosen,
      })
      .then(
        (result) => setState({ result }),
        (error: unknown) => setState({ error: describeError(error) }),
      );
  };
  return (
    <div class="card">
      <h2>Replay under another policy</h2>
      <p class="muted">
        Decides the same content again under the chosen policy and stores it as a new decision.
      </p>
      {policies.error ? <ErrorMessage error={policies.error} retry={policies.reload} /> : null}
      <form class="inline-form" onSubmit={replay}>
        <label class="field">
          <span>Policy</span>
          <select value={chosen} onChange={(e) => setPolicyId(e.currentTarget.value)}>
            {options.map((p) => (
              <option key={p.policyId} value={p.policyId}>
                {p.policyId} — {p.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="button primary" disabled={!chosen || state.busy}>
          {state.busy ? 'Replaying…' : 'Replay'}
        </button>
      </form>
      {state.error && (
        <p class="notice error" role="alert">
          {state.error}
        </p>
      )}
      {state.result && (
        <div class="notice success" role="status">
          <p>
            Under <strong>{state.result.policyId}</strong>: <ActionBadge action={state.result.action} />{' '}
            <Link to={`/decisions/${encodeURIComponent(state.result.decisionId)}`}>
              Open the new decision
            </Link>
          </p>
          <ScoreTable categories={state.result.categories} />
        </div>
      )}
    </div>
  );
}

export function DecisionPage(props: { decisionId: string }) {
  const id = encodeURIComponent(props.decisionId);
  const { data: d, error, reload } = useLoad(() => api.get<Decision>(`/v1/decisions/${id}`), [id]);
  const curl = useLoad(() => api.get<{ curl: string }>(`/v1/decisions/${id}/curl`), [id]);
  if (error) return <ErrorMessage error={error} retry={reload} />;
  if (!d) return <Loading />;
  return (
    <section>
      <p class="crumbs">
        <Link to="/decisions">Decisions</Link> / <span>{d.decisionId}</span>
      </p>
      <PageHeader
        title="Decision"
        description={<code>{d.decisionId}</code>}
        actions={
          <>
            <ActionBadge action={d.effectiveAction ?? d.action} />
            <Link to={`/review/${id}`} class="button small">
              {d.review ? 'Review again' : 'Review'}
            </Link>
          </>
        }
      />
      <DecisionFacts decision={d} />
      {d.review && <ReviewSummary review={d.review} />}
      <DecisionBody decision={d} />
      <div class="card">
        <div class="card-head">
          <h2>cURL</h2>
          {curl.data && <CopyButton text={curl.data.curl} label="Copy cURL" />}
        </div>
        {curl.error ? <ErrorMessage error={curl.error} retry={curl.reload} /> : null}
        {curl.data ? <pre class="code">{curl.data.curl}</pre> : !curl.error && <Loading />}
        <p class="muted small">
          The command reads the key from <code>$VERDICT_API_KEY</code>.
        </p>
      </div>
      <Replay decision={d} />
    </section>
  );
}
