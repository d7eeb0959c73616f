/** The documented schedule (interface §7.5): 1 s, 2 s, 4 s, … between attempts, capped. */
export const BASE_RETRY_DELAY_MS = 1000;
export const MAX_RETRY_DELAY_MS = 60_000;

/** Parses `Retry-After` (seconds, or an HTTP date) into milliseconds; null when absent or unusable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // An HTTP date names its weekday and month; bare numbers such as "-1" are not dates here.
  const date = /[A-Za-z]{3}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (0 = the first retry): the server's `Retry-After` when it gives one,
 * else 1 s, 2 s, 4 s, … up to 60 s. No jitter: the schedule is the documented one. Null when the server asks for
 * more than 60 s: the call gives up with the error (which carries the wait) rather than ask again too early.
 */
export function retryDelay(retry: number, retryAfter?: string | null, now = Date.now()): number | null {
  const fromServer = parseRetryAfter(retryAfter, now);
  if (fromServer !== null) return fromServer <= MAX_RETRY_DELAY_MS ? fromServer : null;
  return Math.min(BASE_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS);
}

/** Statuses retried with backoff: 429 and 5xx. 401, 402, 403, 404 and 422 never are. */
export function isRetryableStatus(status: number, code?: string): boolean {
  if (status === 429 || status >= 500) return true;
  // The first request with this idempotency key is still running (e.g. after a client-side timeout): waiting and
  // asking again gets its stored response.
  return status === 409 && code === 'IDEMPOTENCY_KEY_IN_USE';
}
