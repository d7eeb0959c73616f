import { queryWords } from '../search/search-index.ts';
import { MAX_QUERY_WORDS } from '../search/text.ts';
import { AppError } from './errors.ts';
import { ACTIONS, type Action, type CategoryName, CONTENT_TYPES, POLICY_CATEGORY_NAMES } from './taxonomy.ts';

/** What `GET /v1/decisions` can be narrowed by; every field optional, all given ones must hold. */
export interface DecisionFilter {
  action?: Action;
  policyId?: string;
  /** decisions in which this category triggered */
  category?: CategoryName;
  contentType?: string;
  /** ISO 8601, inclusive */
  from?: string;
  /** ISO 8601, exclusive */
  to?: string;
  /** metadata.userId */
  userId?: string;
  /** the API key that made the decision */
  keyId?: string;
  /** full-text search: decisions whose content holds every word of this text (src/search) */
  q?: string;
}

const FILTER_KEYS = [
  'action',
  'policyId',
  'category',
  'contentType',
  'from',
  'to',
  'userId',
  'keyId',
  'q',
] as const;
const PAGE_KEYS = ['limit', 'offset'];
const DECISION_CONTENT_TYPES = [...CONTENT_TYPES, 'multimodal'];
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

const invalid = (field: string, message: string, extra: Record<string, unknown> = {}) =>
  new AppError('INVALID_PARAMETER', message, { field, ...extra });

function oneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalid(field, `${field} must be one of ${allowed.join(', ')}`, { allowed });
  }
  return value as T;
}

/** Date.parse rolls 2030-02-30 over into March; a day past its month's last is refused instead. */
function realDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** An ISO 8601 date or date-time, normalised to the stored form (UTC, milliseconds) so text comparison is exact. */
export function parseTime(field: string, value: string): string {
  const at = ISO_8601.test(value) && realDay(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at))
    throw invalid(field, `${field} must be an ISO 8601 timestamp, e.g. 2030-03-07T00:00:00Z`);
  return new Date(at).toISOString();
}

/**
 * One query parameter, given at most once: undefined when absent; repeated (an array), empty or longer than 256
 * characters is 422 INVALID_PARAMETER.
 */
export function queryParameter(query: Record<string, unknown>, field: string): string | undefined {
  const value = query[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(field, `${field} must be given once`);
  if (value === '' || value.length > 256) throw invalid(field, `${field} must be 1–256 characters`);
  return value;
}

/** A query's `from` (inclusive) and `to` (exclusive), normalised; when both are given, from must be before to. */
export function queryWindow(query: Record<string, unknown>): { from?: string; to?: string } {
  const fromText = queryParameter(query, 'from');
  const toText = queryParameter(query, 'to');
  const from = fromText === undefined ? undefined : parseTime('from', fromText);
  const to = toText === undefined ? undefined : parseTime('to', toText);
  if (from && to && from >= to) throw invalid('from', 'from must be before to');
  return { ...(from && { from }), ...(to && { to }) };
}

/** Rejects query parameters a route does not know: a misspelt filter must not silently list everything. */
export function rejectUnknownParameters(query: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(query)) {
    if (!known.includes(key)) {
      throw invalid(key, `Unknown query parameter "${key}"`, { allowed: known });
    }
  }
}

/**
 * The filters of a decisions query string; anything unknown, repeated or malformed is 422 INVALID_PARAMETER.
 * `paged: false` (the export) refuses `limit` and `offset` as unknown.
 */
export function parseDecisionFilter(
  query: Record<string, unknown>,
  options: { paged?: boolean } = {},
): DecisionFilter {
  rejectUnknownParameters(query, options.paged === false ? FILTER_KEYS : [...PAGE_KEYS, ...FILTER_KEYS]);
  const filter: DecisionFilter = {};
  for (const key of FILTER_KEYS) {
    const value = queryParameter(query, key);
    if (value === undefined) continue;
    switch (key) {
      case 'action':
        filter.action = oneOf(key, value, ACTIONS);
        break;
      case 'category':
        filter.category = oneOf(key, value, POLICY_CATEGORY_NAMES);
        break;
      case 'contentType':
        filter.contentType = oneOf(key, value, DECISION_CONTENT_TYPES);
        break;
      case 'from':
      case 'to':
        filter[key] = parseTime(key, value);
        break;
      case 'q': {
        const words = queryWords(value).length;
        if (words === 0) throw invalid(key, 'q must contain at least one word');
        if (words > MAX_QUERY_WORDS) throw invalid(key, `q may hold at most ${MAX_QUERY_WORDS} words`);
        filter.q = value;
        break;
      }
      default:
        filter[key] = value;
    }
  }
  if (filter.from && filter.to && filter.from >= filter.to) throw invalid('from', 'from must be before to');
  return filter;
}
