import { api } from './api.ts';
import { formatClock } from './format.ts';
import type { QueueItem, QueuePage, QueueReason } from './types.ts';

/** Shared by the queue page and the review of one decision: how an entry came to the queue, and who holds it. */

export const REASONS: QueueReason[] = ['appeal', 'category', 'action', 'sample'];

export const REASON_LABELS: Record<QueueReason, string> = {
  appeal: 'Appeal',
  category: 'Category',
  action: 'Action',
  sample: 'Sample',
};

export const REASON_EXPLAINED: Record<QueueReason, string> = {
  appeal: 'the user appealed the decision',
  category: 'a category the policy marks with review: true triggered',
  action: "the action is one of the policy's reviewActions",
  sample: "it is in the policy's reviewSample of allowed decisions (quality control)",
};

export const LEASES = [
  { seconds: 300, label: '5 minutes' },
  { seconds: 600, label: '10 minutes' },
  { seconds: 1800, label: '30 minutes' },
  { seconds: 3600, label: '1 hour' },
];

export type LeaseState = 'available' | 'mine' | 'other';

export function leaseState(item: QueueItem, keyId: string): LeaseState {
  if (!item.lease) return 'available';
  return item.lease.keyId === keyId ? 'mine' : 'other';
}

export function describeLease(item: QueueItem, keyId: string): string {
  const state = leaseState(item, keyId);
  if (state === 'available') return 'Available';
  const until = formatClock(item.lease!.expiresAt);
  return state === 'mine' ? `Claimed by you until ${until}` : `Claimed by another reviewer until ${until}`;
}

/** How many queue pages (of 100) are read to find the entry of one decision before giving up. */
const MAX_PAGES = 10;

/**
 * The pending queue entry of one decision: the entry, null when the decision is not queued, or 'unknown' when the
 * queue is too long to tell. The queue has no look-up by decision, so its pages are read, narrowed by the
 * decision's policy, action and content type (what an entry records), until the entry shows up.
 */
export async function findQueueItem(decision: {
  decisionId: string;
  policyId: string;
  action: string;
  contentType: string;
}): Promise<QueueItem | null | 'unknown'> {
  const limit = 100;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await api.get<QueuePage>('/v1/review/queue', {
      policyId: decision.policyId,
      action: decision.action,
      contentType: decision.contentType,
      limit,
      offset: page * limit,
    });
    const found = answer.items.find((i) => i.decisionId === decision.decisionId);
    if (found) return found;
    if (!answer.hasMore) return null;
  }
  return 'unknown';
}
