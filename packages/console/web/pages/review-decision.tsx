import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  ActionBadge,
  describeError,
  ErrorMessage,
  Link,
  Loading,
  PageHeader,
  useLoad,
} from '../components.tsx';
import { DecisionBody, DecisionFacts, ReviewSummary } from '../decision-view.tsx';
import { formatTime, label } from '../format.ts';
import { describeLease, findQueueItem, leaseState, REASON_EXPLAINED } from '../review-queue.ts';
import { navigate } from '../router.ts';
import { ACTIONS, type Action, type Appeal, type Decision, type QueueItem } from '../types.ts';

/** Where the decision stands in the queue: why it is there, who holds it, and the user's appeal if any. */
function QueueCard(props: {
  item: QueueItem | null | 'unknown';
  appeal: Appeal | undefined;
  currentKeyId: string;
  onRelease: () => void;
}) {
  const { appeal } = props;
  const item = props.item === 'unknown' ? null : props.item;
  const state = item ? leaseState(item, props.currentKeyId) : 'available';
  return (
    <section class="card" aria-labelledby="queue-entry">
      <div class="card-head">
        <h2 id="queue-entry">Queue entry</h2>
        {item && state === 'mine' && (
          <button type="button" class="button small" onClick={props.onRelease}>
            Release
          </button>
        )}
      </div>
      {item ? (
        <p>
          Queued {formatTime(item.createdAt)} because {REASON_EXPLAINED[item.reason]}.{' '}
          <strong>{describeLease(item, props.currentKeyId)}.</strong>
        </p>
      ) : props.item === 'unknown' ? (
        <p class="muted">
          The queue holds too many entries of this policy and action to look this one up here; the Review page
          lists it with its lease.
        </p>
      ) : (
        <p class="muted">
          Not in the review queue: a review from here is recorded as a direct review (for example after a
          complaint handled elsewhere).
        </p>
      )}
      {item && state === 'other' && (
        <p class="notice warning">
          Another reviewer holds this entry; the service refuses your review (REVIEW_LEASED) until they review
          or release it, or the lease ends.
        </p>
      )}
      {appeal && (
        <blockquote class="appeal">
          <p class="small muted">
            Appeal filed {formatTime(appeal.createdAt)}
            {appeal.userId ? ` by user ${appeal.userId}` : ''}:
          </p>
          <p>{appeal.statement}</p>
        </blockquote>
      )}
    </section>
  );
}

function ReviewForm(props: { decision: Decision; onReviewed: (d: Decision) => void }) {
  const d = props.decision;
  const current = d.effectiveAction ?? d.action;
  const others = ACTIONS.filter((a) => a !== current);
  const [outcome, setOutcome] = useState<'confirm' | 'overturn'>('confirm');
  const [action, setAction] = useState<Action>(others[0]!);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const judged = d.categories.filter((c) => c.evaluated !== false);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const note = String(form.get('note') ?? '').trim();
    setBusy(true);
    setError(null);
    api
      .post<Decision>(`/v1/decisions/${encodeURIComponent(d.decisionId)}/review`, {
        outcome,
        ...(outcome === 'overturn' && { action }),
        categories: form.getAll('categories').map(String),
        ...(note && { note }),
      })
      .then(
        (reviewed) => {
          setBusy(false);
          props.onReviewed(reviewed);
        },
        (failure: unknown) => {
          setBusy(false);
          setError(describeError(failure));
        },
      );
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="your-review">
      <h2 id="your-review" class="span-all">
        Your review
      </h2>
      <fieldset class="field span-all">
        <legend>Outcome</legend>
        <div class="checks">
          <label class="check plain">
            <input
              type="radio"
              name="outcome"
              value="confirm"
              checked={outcome === 'confirm'}
              onChange={() => setOutcome('confirm')}
            />
            Confirm: {current} stands
          </label>
          <label class="check plain">
            <input
              type="radio"
              name="outcome"
              value="overturn"
              checked={outcome === 'overturn'}
              onChange={() => setOutcome('overturn')}
            />
            Overturn
          </label>
        </div>
      </fieldset>
      {outcome === 'overturn' && (
        <label class="field">
          <span>New action</span>
          <select value={action} onChange={(e) => setAction(e.currentTarget.value as Action)}>
            {others.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
      )}
      {judged.length > 0 && (
        <fieldset class="field span-all">
          <legend>Categories that apply</legend>
          <div class="checks">
            {judged.map((c) => (
              <label key={c.category} class="check plain">
                <input type="checkbox" name="categories" value={c.category} defaultChecked={c.triggered} />
                {label(c.category)}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <label class="field span-all">
        <span>Reason</span>
        <textarea
          name="note"
          rows={3}
          maxLength={2000}
          placeholder="Why the action stands or changes (kept with the review, shown in the statement of reasons)"
        />
      </label>
      {error && (
        <p class="notice error span-all" role="alert">
          {error}
        </p>
      )}
      <div class="form-actions span-all">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Submitting…' : 'Submit review'}
        </button>
      </div>
    </form>
  );
}

export function ReviewDecisionPage(props: { decisionId: string; currentKeyId: string }) {
  const id = encodeURIComponent(props.decisionId);
  const loaded = useLoad(() => api.get<Decision>(`/v1/decisions/${id}`), [id]);
  const [decision, setDecision] = useState<Decision | undefined>(undefined);
  const [done, setDone] = useState<Decision | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    setDecision(loaded.data);
    setDone(null);
  }, [loaded.data]);
  const d = decision ?? loaded.data;
  const entry = useLoad(() => (d ? findQueueItem(d) : Promise.resolve(null)), [d?.decisionId]);
  const appeals = useLoad(() => api.get<{ appeals: Appeal[] }>(`/v1/decisions/${id}/appeals`), [id]);
  if (loaded.error) return <ErrorMessage error={loaded.error} retry={loaded.reload} />;
  if (!d) return <Loading />;
  const openAppeal = appeals.data?.appeals.find((a) => a.status === 'open');
  const release = () => {
    setNotice(null);
    setFailure(null);
    const item = entry.data;
    if (!item || item === 'unknown') return;
    api.post(`/v1/review/queue/${encodeURIComponent(item.itemId)}/release`).then(
      () => {
        setNotice('Entry released: it is back in the queue for anyone to claim.');
        entry.reload();
      },
      (error: unknown) => setFailure(describeError(error)),
    );
  };
  const claimNext = () => {
    setFailure(null);
    api.post<{ items: QueueItem[] }>('/v1/review/queue/claim', { limit: 1 }).then(
      ({ items }) =>
        items[0]
          ? navigate(`/review/${encodeURIComponent(items[0].decisionId)}`)
          : setNotice('Nothing left to claim: the queue is empty or held by other reviewers.'),
      (error: unknown) => setFailure(describeError(error)),
    );
  };
  return (
    <section>
      <p class="crumbs">
        <Link to="/review">Review</Link> / <span>{d.decisionId}</span>
      </p>
      <PageHeader
        title="Review decision"
        description={
          <Link to={`/decisions/${id}`}>
            <code>{d.decisionId}</code>
          </Link>
        }
        actions={<ActionBadge action={d.effectiveAction ?? d.action} />}
      />
      {done?.review && (
        <div class="notice success" role="status">
          <p>
            Review recorded:{' '}
            {done.review.outcome === 'overturn'
              ? `overturned ${done.review.previousAction} to ${done.review.action}.`
              : `${done.review.action} confirmed.`}{' '}
            <Link to="/review">Back to the queue</Link>{' '}
            <button type="button" class="button small" onClick={claimNext}>
              Claim the next entry
            </button>
          </p>
        </div>
      )}
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      {failure && (
        <p class="notice error" role="alert">
          {failure}
        </p>
      )}
      {!done && entry.error ? <ErrorMessage error={entry.error} retry={entry.reload} /> : null}
      {!done && !entry.error && entry.data !== undefined && !(entry.loading && entry.data === null) && (
        <QueueCard
          item={entry.data}
          appeal={openAppeal}
          currentKeyId={props.currentKeyId}
          onRelease={release}
        />
      )}
      {!done && (
        <ReviewForm
          key={`${d.decisionId}:${d.review?.reviewId ?? ''}`}
          decision={d}
          onReviewed={(reviewed) => {
            setDecision(reviewed);
            setDone(reviewed);
            setNotice(null);
          }}
        />
      )}
      {d.review && <ReviewSummary review={d.review} />}
      <DecisionFacts decision={d} />
      <DecisionBody decision={d} />
    </section>
  );
}
