// The event types alone, without the event building of events.ts (which imports storage): the CLI validates
// `--events` with them and must start without loading the database layer.

/** Every event type of decisions §6.1. */
export const EVENT_TYPES = [
  'decision.created',
  'decision.flagged',
  'decision.blocked',
  'moderation.completed',
  'moderation.failed',
  // human review (issue 18): a review was recorded; it changed the action; an appeal was decided
  'decision.reviewed',
  'decision.overturned',
  'appeal.resolved',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}
