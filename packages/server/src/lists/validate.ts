import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Principal } from '../domain/principal.ts';
import { ACTIONS, type Action } from '../domain/taxonomy.ts';
import type { ListEntryRecord } from '../storage/repositories/lists.ts';
import { parseCaps } from './caps.ts';
import {
  LIST_NAME_PATTERN,
  MAX_DESCRIPTION_LENGTH,
  MAX_ENTRIES_PER_CALL,
  MAX_ENTRIES_PER_LIST,
  MAX_REGEX_PER_LIST,
} from './limits.ts';
import { type NormalisedEntry, normaliseEntry } from './normalise.ts';
import type { ListCaps, ListKind } from './types.ts';

/** A new list's name, kind and effect (a block list's action, an allow list's caps), validated with the spec codes. */
export function parseListSettings(body: {
  name?: unknown;
  kind?: unknown;
  action?: unknown;
  caps?: unknown;
  description?: unknown;
}): {
  name: string;
  kind: ListKind;
  action: Action | null;
  caps: ListCaps | null;
  description: string | null;
} {
  if (body.name === undefined || body.name === null) {
    throw new AppError('MISSING_REQUIRED_FIELD', 'name is required', { field: 'name' });
  }
  if (typeof body.name !== 'string' || !LIST_NAME_PATTERN.test(body.name)) {
    throw new AppError(
      'INVALID_PARAMETER',
      'name must be 1–64 characters of A-Z, a-z, 0-9, _ and - (not starting with lst_)',
      { field: 'name', pattern: LIST_NAME_PATTERN.source },
    );
  }
  if (body.kind === undefined || body.kind === null) {
    throw new AppError('MISSING_REQUIRED_FIELD', 'kind is required (block or allow)', { field: 'kind' });
  }
  if (body.kind !== 'block' && body.kind !== 'allow') {
    throw new AppError('INVALID_PARAMETER', 'kind must be block or allow', {
      field: 'kind',
      allowed: ['block', 'allow'],
    });
  }
  const kind: ListKind = body.kind;
  let action: Action | null = null;
  if (kind === 'block') {
    const given = body.action ?? 'block';
    if (typeof given !== 'string' || !(ACTIONS as readonly string[]).includes(given)) {
      throw new AppError('INVALID_ACTION', 'action must be one of allow, warn, flag, block', {
        field: 'action',
        allowed: [...ACTIONS],
      });
    }
    action = given as Action;
    if (body.caps !== undefined) {
      throw new AppError('INVALID_PARAMETER', 'caps belong to allow lists', { field: 'caps' });
    }
  } else {
    if (body.action !== undefined) {
      throw new AppError('INVALID_PARAMETER', 'action belongs to block lists; an allow list has caps', {
        field: 'action',
      });
    }
    if (body.caps === undefined || body.caps === null) {
      throw new AppError('MISSING_REQUIRED_FIELD', 'An allow list needs caps (category → action or score)', {
        field: 'caps',
      });
    }
  }
  const caps = kind === 'allow' ? parseCaps(body.caps, 'caps', 'INVALID_PARAMETER') : null;
  const description = optionalString(body.description, 'description', MAX_DESCRIPTION_LENGTH);
  return { name: body.name, kind, action, caps, description };
}

export function parseEntries(raw: unknown, field: string): NormalisedEntry[] {
  if (!Array.isArray(raw)) {
    throw new AppError('INVALID_PARAMETER', `${field} must be an array of terms, phrases or { regex }`, {
      field,
    });
  }
  if (raw.length > MAX_ENTRIES_PER_CALL) {
    throw new AppError(
      'TOO_MANY_ITEMS',
      `At most ${MAX_ENTRIES_PER_CALL} entries per request (import takes more)`,
      {
        field,
        max: MAX_ENTRIES_PER_CALL,
      },
    );
  }
  return raw.map((entry, index) => normaliseEntry(entry, `${field}[${index}]`));
}

/** Refuses a change that would take the list past its entry or regex bound (counting duplicates, to be safe). */
export function checkCapacity(entryCount: number, regexCount: number, adding: NormalisedEntry[]): void {
  if (entryCount + adding.length > MAX_ENTRIES_PER_LIST) {
    throw new AppError('INVALID_PARAMETER', `A list holds at most ${MAX_ENTRIES_PER_LIST} entries`, {
      reason: 'list_full',
      entryCount,
      max: MAX_ENTRIES_PER_LIST,
    });
  }
  const regexes = adding.filter((e) => e.type === 'regex').length;
  if (regexCount + regexes > MAX_REGEX_PER_LIST) {
    throw new AppError('INVALID_PARAMETER', `A list holds at most ${MAX_REGEX_PER_LIST} regex entries`, {
      reason: 'too_many_regexes',
      regexCount,
      max: MAX_REGEX_PER_LIST,
    });
  }
}

export function records(
  principal: Principal,
  listId: string,
  entries: NormalisedEntry[],
  now: string,
): ListEntryRecord[] {
  return entries.map((e) => ({
    id: newId('lse'),
    listId,
    accountId: principal.accountId,
    type: e.type,
    value: e.value,
    normalised: e.normalised,
    createdAt: now,
  }));
}

export function optionalString(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max) {
    throw new AppError('INVALID_PARAMETER', `${field} must be a string of at most ${max} characters`, {
      field,
    });
  }
  return value.trim() === '' ? null : value.trim();
}
