import { useMemo, useState } from 'preact/hooks';
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
import { formatTime, label, ms } from '../format.ts';
import { HighlightedText } from '../highlights.tsx';
import { ScoreTable } from '../scores.tsx';
import type { Decision, FrameResult, MultimodalResult, Policy } from '../types.ts';

/** Evidence frames are served by the service itself; anything on another origin is linked, never embedded. */
function sameOrigin(url: string): boolean {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

/** A video decision's results are its frames; a multi-modal decision's are its items. */
function isFrames(results: unknown[]): results is FrameResult[] {
  return typeof (results[0] as { frameNumber?: unknown })?.frameNumber === 'number';
}

function Frames(props: { frames: FrameResult[] }) {
  const flagged = props.frames.filter((f) => f.flagged);
  if (flagged.length === 0)
    return <p class="muted">No frame triggered ({props.frames.length} frames judged).</p>;
  return (
    <ul class="frames">
      {flagged.map((f) => (
        <li key={f.frameNumber} class="frame">
          {f.evidence && sameOrigin(f.evidence.url) ? (
            <img
              src={f.evidence.url}
              alt={`Frame ${f.frameNumber} at ${f.timestamp.toFixed(1)} s`}
              loading="lazy"
            />
          ) : f.evidence ? (
            <a href={f.evidence.url} rel="noreferrer">
              Evidence frame
            </a>
          ) : null}
          <span>
            Frame {f.frameNumber} · {f.timestamp.toFixed(1)} s ·{' '}
            {f.categories
              .filter((c) => c.triggered)
              .map((c) => label(c.category))
              .join(', ')}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Items(props: { results: MultimodalResult[] }) {
  return (
    <div class="items">
      {props.results.map((r, i) => (
        <div key={i} class="item">
          <h3>
            {label(r.contentType)} {r.contentRef && <code class="small">{r.contentRef}</code>}{' '}
            <ActionBadge action={r.action} />
          </h3>
          <ScoreTable categories={r.categories} />
          {(r.frames ?? r.results) && <Frames frames={(r.frames ?? r.results)!} />}
        </div>
      ))}
    </div>
  );
}

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
  const [only, setOnly] = useState<string | null>(null);
  const colors = useMemo(
    () => new Map((d?.categories ?? []).map((c, i) => [c.category, i % 6] as const)),
    [d],
  );
  if (error) return <ErrorMessage error={error} retry={reload} />;
  if (!d) return <Loading />;
  const highlighted = d.categories.filter((c) => (c.highlights?.length ?? 0) > 0);
  return (
    <section>
      <p class="crumbs">
        <Link to="/decisions">Decisions</Link> / <span>{d.decisionId}</span>
      </p>
      <PageHeader
        title="Decision"
        description={<code>{d.decisionId}</code>}
        actions={<ActionBadge action={d.action} />}
      />
      <dl class="facts card">
        <div>
          <dt>Time</dt>
          <dd>{formatTime(d.timestamp)}</dd>
        </div>
        <div>
          <dt>Policy</dt>
          <dd>
            {d.policyId} v{d.policyVersion}
          </dd>
        </div>
        <div>
          <dt>Result</dt>
          <dd>{d.safe ? 'Safe' : d.flagged ? 'Flagged' : 'Not safe'}</dd>
        </div>
        <div>
          <dt>Content type</dt>
          <dd>{d.contentType}</dd>
        </div>
        <div>
          <dt>Language</dt>
          <dd>{d.language ?? '—'}</dd>
        </div>
        <div>
          <dt>Latency</dt>
          <dd>{ms(d.latency)}</dd>
        </div>
        <div>
          <dt>Provider</dt>
          <dd>{d.provider}</dd>
        </div>
        {d.metadata?.userId !== undefined && (
          <div>
            <dt>User ID</dt>
            <dd>{String(d.metadata.userId)}</dd>
          </div>
        )}
        {d.replayOf && (
          <div>
            <dt>Replay of</dt>
            <dd>
              <Link to={`/decisions/${encodeURIComponent(d.replayOf)}`}>{d.replayOf}</Link>
            </dd>
          </div>
        )}
      </dl>
      <div class="card">
        <div class="card-head">
          <h2>Content</h2>
          {highlighted.length > 0 && (
            <fieldset class="segmented">
              <legend class="sr-only">Highlight spans of</legend>
              <button
                type="button"
                class="segment"
                aria-pressed={only === null}
                onClick={() => setOnly(null)}
              >
                All categories
              </button>
              {highlighted.map((c) => (
                <button
                  key={c.category}
                  type="button"
                  class={`segment hl-key-${colors.get(c.category)}`}
                  aria-pressed={only === c.category}
                  onClick={() => setOnly(c.category)}
                >
                  {label(c.category)}
                </button>
              ))}
            </fieldset>
          )}
        </div>
        {d.contentType === 'text' ? (
          <HighlightedText content={d.content} categories={d.categories} only={only} colors={colors} />
        ) : (
          <p class="content-text">
            <code>{d.content}</code>
          </p>
        )}
      </div>
      <div class="card">
        <h2>Scores against thresholds</h2>
        <ScoreTable categories={d.categories} />
      </div>
      {d.results && d.results.length > 0 && (
        <div class="card">
          {isFrames(d.results) ? (
            <>
              <h2>Video frames</h2>
              <Frames frames={d.results} />
            </>
          ) : (
            <>
              <h2>Items</h2>
              <Items results={d.results} />
            </>
          )}
        </div>
      )}
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
