import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  ActionBadge,
  describeError,
  Empty,
  ErrorMessage,
  Link,
  Loading,
  PageHeader,
  Pager,
  TableHead,
  useLoad,
} from '../components.tsx';
import { formatClock, formatTime, truncate } from '../format.ts';
import {
  describeLease,
  LEASES,
  type LeaseState,
  leaseState,
  REASON_LABELS,
  REASONS,
} from '../review-queue.ts';
import type { QueueItem, QueuePage, QueueReason } from '../types.ts';

const PAGE = 25;

function ClaimForm(props: { reason: QueueReason | ''; onClaimed: (message: string) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const claim = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const limit = Number(form.get('limit'));
    if (!Number.isInteger(limit) || limit < 1 || limit > 50) {
      setError('Claim from 1 to 50 entries at a time.');
      return;
    }
    setBusy(true);
    setError(null);
    api
      .post<{ items: QueueItem[]; leaseExpiresAt: string }>('/v1/review/queue/claim', {
        limit,
        leaseSeconds: Number(form.get('leaseSeconds')),
        ...(props.reason && { reason: props.reason }),
      })
      .then(
        ({ items, leaseExpiresAt }) => {
          setBusy(false);
          props.onClaimed(
            items.length === 0
              ? 'Nothing to claim: every entry is reviewed or held by another reviewer.'
              : `Claimed ${items.length} ${items.length === 1 ? 'entry' : 'entries'} until ${formatClock(leaseExpiresAt)}.`,
          );
        },
        (failure: unknown) => {
          setBusy(false);
          setError(describeError(failure));
        },
      );
  };
  return (
    <form class="inline-form claim-form" onSubmit={claim} aria-label="Claim entries">
      <label class="field narrow">
        <span>Entries to claim</span>
        <input type="number" name="limit" min={1} max={50} defaultValue="1" required />
      </label>
      <label class="field narrow">
        <span>Lease</span>
        <select name="leaseSeconds">
          {LEASES.map((l) => (
            <option key={l.seconds} value={l.seconds} selected={l.seconds === 600}>
              {l.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="button primary" disabled={busy}>
        {busy ? 'Claiming…' : 'Claim'}
      </button>
      {error && (
        <p class="notice error span-all" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

const LEASE_CLASS: Record<LeaseState, string> = {
  available: 'muted',
  mine: 'lease-mine',
  other: 'lease-other',
};

export function ReviewPage(props: { currentKeyId: string }) {
  const [reason, setReason] = useState<QueueReason | ''>('');
  const [available, setAvailable] = useState(false);
  const [offset, setOffset] = useState(0);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const { data, error, loading, reload } = useLoad(
    () =>
      api.get<QueuePage>('/v1/review/queue', {
        reason,
        available: available ? 'true' : undefined,
        limit: PAGE,
        offset,
      }),
    [reason, available, offset],
  );
  const release = (item: QueueItem) => {
    setNotice(null);
    api.post(`/v1/review/queue/${encodeURIComponent(item.itemId)}/release`).then(
      () => {
        setNotice({ kind: 'success', text: 'Entry released: it is back in the queue for anyone to claim.' });
        reload();
      },
      (failure: unknown) => setNotice({ kind: 'error', text: describeError(failure) }),
    );
  };
  const filtered = reason !== '' || available;
  return (
    <section>
      <PageHeader
        title="Review"
        description="Decisions waiting for a person to confirm or overturn them: appeals first, then oldest first."
      />
      <div class="card review-toolbar">
        <div class="review-filters">
          <label class="field">
            <span>Reason</span>
            <select
              value={reason}
              onChange={(e) => {
                setReason(e.currentTarget.value as QueueReason | '');
                setOffset(0);
              }}
            >
              <option value="">Any reason</option>
              {REASONS.map((r) => (
                <option key={r} value={r}>
                  {REASON_LABELS[r]}
                </option>
              ))}
            </select>
          </label>
          <label class="check plain">
            <input
              type="checkbox"
              checked={available}
              onChange={(e) => {
                setAvailable(e.currentTarget.checked);
                setOffset(0);
              }}
            />
            Hide entries other reviewers hold
          </label>
        </div>
        <ClaimForm
          reason={reason}
          onClaimed={(text) => {
            setNotice({ kind: 'success', text });
            reload();
          }}
        />
        <p class="muted small span-all">
          A claim leases the next available entries{reason ? ` of reason ${REASON_LABELS[reason]}` : ''},
          appeals first, to your key: no other reviewer gets them until you review or release them, or the
          lease ends.
        </p>
      </div>
      {notice && (
        <p class={`notice ${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
          {notice.text}
        </p>
      )}
      {error ? <ErrorMessage error={error} retry={reload} /> : null}
      {loading && !data && <Loading />}
      {data && data.items.length === 0 && (
        <Empty title={filtered ? 'No entry matches these filters' : 'Nothing to review'}>
          {filtered ? (
            <p>Choose another reason, or show the entries other reviewers hold.</p>
          ) : (
            <p>
              A decision is queued when its policy asks for it: <code>review: true</code> on a category,{' '}
              <code>reviewActions: [flag]</code>, or <code>reviewSample: 0.01</code> for a share of allowed
              decisions. Appeals (<code>POST /v1/decisions/&#123;id&#125;/appeals</code>) come first.{' '}
              <Link to="/policies">Edit a policy</Link>.
            </p>
          )}
        </Empty>
      )}
      {data && data.items.length > 0 && (
        <div class={`card table-card ${loading ? 'stale' : ''}`}>
          <table class="table">
            <caption class="sr-only">Review queue</caption>
            <TableHead
              columns={[
                'Reason',
                { label: 'Action', narrow: true },
                'Content',
                { label: 'Policy', narrow: true },
                { label: 'Queued', narrow: true },
                'Claim',
                { label: 'Actions', srOnly: true },
              ]}
            />
            <tbody>
              {data.items.map((item) => {
                const state = leaseState(item, props.currentKeyId);
                return (
                  <tr key={item.itemId}>
                    <td>
                      <span class={`badge reason-${item.reason}`}>{REASON_LABELS[item.reason]}</span>
                    </td>
                    <td class="hide-narrow">
                      <ActionBadge action={item.action} />
                    </td>
                    <td class="content-cell">
                      {item.decision ? truncate(item.decision.content, 90) : item.decisionId}
                    </td>
                    <td class="hide-narrow">{item.policyId}</td>
                    <td class="hide-narrow nowrap">{formatTime(item.createdAt)}</td>
                    <td class={LEASE_CLASS[state]}>{describeLease(item, props.currentKeyId)}</td>
                    <td>
                      <div class="row-actions">
                        <Link to={`/review/${encodeURIComponent(item.decisionId)}`} class="button small">
                          Open
                        </Link>
                        {state === 'mine' && (
                          <button type="button" class="button small" onClick={() => release(item)}>
                            Release
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager
            offset={data.offset}
            limit={PAGE}
            hasMore={data.hasMore}
            shown={data.items.length}
            onPage={setOffset}
          />
        </div>
      )}
    </section>
  );
}
