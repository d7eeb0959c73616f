import { rejectUnknownParameters } from '../domain/decision-filters.ts';
import { AppError } from '../domain/errors.ts';
import { ACTIONS, type Action, POLICY_CATEGORY_NAMES } from '../domain/taxonomy.ts';
import type { QueueFilter } from './repository.ts';

export const LEASE_SECONDS = { default: 600, min: 5, max: 3600 };
export const MAX_CLAIM = 50;
export const MAX_NOTE_CHARS = 2000;
export const MAX_STATEMENT_CHARS = 5000;
export const MAX_USER_ID_CHARS = 200;

const REASONS = ['category', 'action', 'sample', 'appeal'] as const;
const CONTENT_TYPES = ['text', 'image', 'video', 'multimodal'] as const;
const FILTER_KEYS = ['reason', 'policyId', 'action', 'contentType'] as const;

const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new AppError('INVALID_PARAMETER', message, { field, ...details });

function oneOf(field: string, value: unknown, allowed: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value))
    throw invalid(field, `${field} must be one of ${allowed.join(', ')}`, { allowed });
  return value;
}

/** The queue filters of a query string or a claim body. */
export function parseQueueFilter(input: Record<string, unknown>): QueueFilter {
  const filter: QueueFilter = {};
  const reason = oneOf('reason', input.reason, REASONS);
  const action = oneOf('action', input.action, ACTIONS);
  const contentType = oneOf('contentType', input.contentType, CONTENT_TYPES);
  if (input.policyId !== undefined) {
    if (typeof input.policyId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(input.policyId))
      throw invalid('policyId', 'policyId must be 1–64 characters of A-Z, a-z, 0-9, _ and -');
    filter.policyId = input.policyId;
  }
  if (reason) filter.reason = reason;
  if (action) filter.action = action;
  if (contentType) filter.contentType = contentType;
  return filter;
}

/** `GET /v1/review/queue`: filters, pagination (read by the route) and `available=true`. */
export function parseQueueQuery(query: Record<string, unknown>): { filter: QueueFilter; available: boolean } {
  rejectUnknownParameters(query, ['limit', 'offset', 'available', ...FILTER_KEYS]);
  const available = oneOf('available', query.available, ['true', 'false']) === 'true';
  return { filter: parseQueueFilter(query), available };
}

function boundedInteger(field: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw invalid(field, `${field} must be an integer from ${min} to ${max}`);
  return value;
}

/** `POST /v1/review/queue/claim`: `{ limit?, leaseSeconds?, reason?, policyId?, action?, contentType? }`. */
export function parseClaim(body: Record<string, unknown>) {
  rejectUnknownParameters(body, ['limit', 'leaseSeconds', ...FILTER_KEYS]);
  return {
    limit: boundedInteger('limit', body.limit, 1, 1, MAX_CLAIM),
    leaseSeconds: boundedInteger(
      'leaseSeconds',
      body.leaseSeconds,
      LEASE_SECONDS.default,
      LEASE_SECONDS.min,
      LEASE_SECONDS.max,
    ),
    filter: parseQueueFilter(body),
  };
}

function optionalText(field: string, value: unknown, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(field, `${field} must be a string`);
  if (value.length > max)
    throw new AppError('CONTENT_TOO_LARGE', `${field} is longer than ${max} characters`, { field, max });
  return value;
}

export interface ReviewInput {
  outcome: 'confirm' | 'overturn';
  action: Action | null;
  categories: string[];
  note: string | null;
}

/** `POST /v1/decisions/{id}/review`: `{ outcome, action? (overturn), categories?, note? }`. */
export function parseReview(body: Record<string, unknown>): ReviewInput {
  rejectUnknownParameters(body, ['outcome', 'action', 'categories', 'note']);
  if (body.outcome === undefined)
    throw new AppError('MISSING_REQUIRED_FIELD', 'outcome is required (confirm or overturn)', {
      field: 'outcome',
    });
  const outcome = oneOf('outcome', body.outcome, ['confirm', 'overturn']) as ReviewInput['outcome'];
  if (outcome === 'overturn' && body.action === undefined)
    throw new AppError('MISSING_REQUIRED_FIELD', 'An overturn names the action that applies instead', {
      field: 'action',
    });
  const action = (oneOf('action', body.action, ACTIONS) as Action | undefined) ?? null;
  let categories: string[] = [];
  if (body.categories !== undefined) {
    const list = body.categories;
    if (!Array.isArray(list) || list.length > POLICY_CATEGORY_NAMES.length)
      throw invalid('categories', 'categories must be a list of category names', {
        allowed: POLICY_CATEGORY_NAMES,
      });
    for (const c of list)
      if (typeof c !== 'string' || !(POLICY_CATEGORY_NAMES as readonly string[]).includes(c))
        throw invalid('categories', `Unknown category ${JSON.stringify(c)}`, {
          allowed: POLICY_CATEGORY_NAMES,
        });
    categories = [...new Set(list as string[])];
  }
  return { outcome, action, categories, note: optionalText('note', body.note, MAX_NOTE_CHARS) };
}

/** `POST /v1/decisions/{id}/appeals`: `{ statement, userId? }`. */
export function parseAppeal(body: Record<string, unknown>): { statement: string; userId: string | null } {
  rejectUnknownParameters(body, ['statement', 'userId']);
  if (body.statement === undefined || body.statement === null)
    throw new AppError('MISSING_REQUIRED_FIELD', "statement (the user's own words) is required", {
      field: 'statement',
    });
  const statement = optionalText('statement', body.statement, MAX_STATEMENT_CHARS) ?? '';
  if (statement.trim() === '')
    throw new AppError('INVALID_CONTENT', 'statement must not be empty', { field: 'statement' });
  return { statement, userId: optionalText('userId', body.userId, MAX_USER_ID_CHARS) };
}
