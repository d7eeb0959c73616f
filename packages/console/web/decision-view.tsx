import { useMemo, useState } from 'preact/hooks';
import { ActionBadge, Link } from './components.tsx';
import { FrameEvidence } from './evidence/frames.tsx';
import { ImageEvidence } from './evidence/image.tsx';
import { formatTime, label, ms } from './format.ts';
import { HighlightedText } from './highlights.tsx';
import { ScoreTable } from './scores.tsx';
import type { Decision, FrameResult, HumanReview, MultimodalResult } from './types.ts';

/**
 * The parts of a decision as the console shows it: facts, content with its highlighted spans (an image's: what the
 * service kept of it, and the text read in it), scores, video frames with their evidence or multi-modal items, and
 * the human review. The decision page and the review page both compose them.
 */

/** A video decision's results are its frames; a multi-modal decision's are its items. */
function isFrames(results: unknown[]): results is FrameResult[] {
  return typeof (results[0] as { frameNumber?: unknown })?.frameNumber === 'number';
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
          {(r.frames ?? r.results) && (
            <FrameEvidence frames={(r.frames ?? r.results)!} categories={r.categories} />
          )}
        </div>
      ))}
    </div>
  );
}

/** Where a video came from: the console never plays it (an upload is gone once analysed; a URL is another host's). */
function VideoSource(props: { content: string }) {
  if (props.content === '') return <p class="muted">The content was not stored with this decision.</p>;
  const upload = props.content.startsWith('upload:');
  return (
    <>
      <p class="content-text">
        <code>{props.content}</code>
      </p>
      <p class="muted small">
        {upload
          ? 'An uploaded file, removed once analysed: what the service keeps are the frames that triggered, below, until their evidence links expire.'
          : 'Checked by URL. The console does not load it: it shows only what this service serves itself. The frames that triggered are below.'}
      </p>
    </>
  );
}

/** The facts of a decision, the human review's outcome among them once a person reviewed it. */
export function DecisionFacts(props: { decision: Decision }) {
  const d = props.decision;
  return (
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
        <dt>Automated action</dt>
        <dd>
          <ActionBadge action={d.action} />
        </dd>
      </div>
      {d.review && (
        <div>
          <dt>Effective action</dt>
          <dd>
            <ActionBadge action={d.effectiveAction ?? d.action} />
          </dd>
        </div>
      )}
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
  );
}

/** The content (a text with its spans, per category on demand), its scores, and its frames or items. */
export function DecisionBody(props: { decision: Decision }) {
  const d = props.decision;
  const [only, setOnly] = useState<string | null>(null);
  const colors = useMemo(
    () => new Map((d.categories ?? []).map((c, i) => [c.category, i % 6] as const)),
    [d],
  );
  const highlighted = d.categories.filter((c) => (c.highlights?.length ?? 0) > 0);
  return (
    <>
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
        ) : d.contentType === 'image' ? (
          <ImageEvidence decision={d} only={only} colors={colors} />
        ) : d.contentType === 'video' ? (
          <VideoSource content={d.content} />
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
              <FrameEvidence frames={d.results} categories={d.categories} />
            </>
          ) : (
            <>
              <h2>Items</h2>
              <Items results={d.results} />
            </>
          )}
        </div>
      )}
    </>
  );
}

/** The latest human review: who, when, what they decided and why. */
export function ReviewSummary(props: { review: HumanReview }) {
  const r = props.review;
  return (
    <section class="card" aria-labelledby="human-review">
      <h2 id="human-review">Human review</h2>
      <dl class="facts">
        <div>
          <dt>Outcome</dt>
          <dd>
            {r.outcome === 'overturn' ? (
              <>
                Overturned: <ActionBadge action={r.previousAction} /> → <ActionBadge action={r.action} />
              </>
            ) : (
              <>
                Confirmed <ActionBadge action={r.action} />
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Reviewer</dt>
          <dd>
            {r.reviewer.name ?? 'Unnamed key'}
            <br />
            <code class="small">{r.reviewer.keyId}</code>
          </dd>
        </div>
        <div>
          <dt>Reviewed</dt>
          <dd>{formatTime(r.reviewedAt)}</dd>
        </div>
        <div>
          <dt>Categories found</dt>
          <dd>{r.categories.length ? r.categories.map(label).join(', ') : '—'}</dd>
        </div>
        <div>
          <dt>Route</dt>
          <dd>{r.appealId ? 'Appeal' : r.direct ? 'Direct review' : 'Review queue'}</dd>
        </div>
      </dl>
      <p class="review-note">{r.note ? r.note : <span class="muted">No reason given.</span>}</p>
    </section>
  );
}
