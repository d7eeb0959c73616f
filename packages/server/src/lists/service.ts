import type { AuditSink } from '../audit/types.ts';
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { type Principal, requireScope } from '../domain/principal.ts';
import type { ListRecord, ListRepository } from '../storage/repositories/lists.ts';
import { MAX_ENTRIES_PER_CALL, MAX_ENTRIES_PER_LIST, MAX_LISTS_PER_ACCOUNT } from './limits.ts';
import { type NormalisedEntry, normaliseEntry } from './normalise.ts';
import { checkCapacity, parseEntries, parseListSettings, records } from './validate.ts';
import { listView } from './views.ts';

export interface ListChanges {
  list: ListRecord;
  received: number;
  added: number;
  duplicates: number;
}

/** What the service needs from elsewhere: which policies name a list, and who to tell about a change. */
export interface ListServiceHooks {
  /** IDs of the account's policies that name the list (a list in use cannot be deleted). */
  policiesNaming(accountId: string, name: string): Promise<string[]>;
  /** Called after any change of an account's lists (the matcher drops what it cached). */
  changed(accountId: string): void;
}

/** Match lists (issue 18, item 8): block and allow lists of terms, phrases and regexes, per account. */
export class ListService {
  constructor(
    private readonly repo: ListRepository,
    private readonly hooks: ListServiceHooks,
    /** List creations and deletions, and entry additions, imports and removals, are audit entries. */
    private readonly audit: AuditSink,
  ) {}

  /** Tells the matcher and records the change (entries by count and the first 100 values, not 100k of them). */
  private async changed(
    principal: Principal,
    action: string,
    list: ListRecord,
    change: { before?: unknown; after?: unknown },
  ): Promise<void> {
    this.hooks.changed(principal.accountId);
    await this.audit.record(
      principal,
      action,
      { type: 'list', id: list.id, accountId: list.accountId },
      change,
    );
  }

  async create(
    principal: Principal,
    body: {
      name?: unknown;
      kind?: unknown;
      action?: unknown;
      caps?: unknown;
      description?: unknown;
      entries?: unknown;
    },
  ): Promise<{ list: ListRecord; added: number; duplicates: number }> {
    requireScope(principal, 'lists:write');
    const { name, kind, action, caps, description } = parseListSettings(body);
    const entries = body.entries === undefined ? [] : parseEntries(body.entries, 'entries');
    checkCapacity(0, 0, entries);
    if ((await this.repo.count(principal.accountId)) >= MAX_LISTS_PER_ACCOUNT) {
      throw new AppError('INVALID_PARAMETER', `An account has at most ${MAX_LISTS_PER_ACCOUNT} lists`, {
        reason: 'too_many_lists',
        max: MAX_LISTS_PER_ACCOUNT,
      });
    }
    const now = new Date().toISOString();
    const list: ListRecord = {
      id: newId('lst'),
      accountId: principal.accountId,
      name,
      kind,
      action,
      caps,
      description,
      version: 0,
      entryCount: 0,
      regexCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    const inserted = await this.repo.insert(list, records(principal, list.id, entries, now));
    if (inserted === false) {
      throw new AppError('DUPLICATE_LIST', `A list named "${name}" already exists`, { name });
    }
    const stored = (await this.repo.find(principal.accountId, list.id)) ?? list;
    await this.changed(principal, 'list.created', stored, {
      after: { ...listView(stored), entries: inserted.slice(0, 100).map((e) => e.value) },
    });
    return {
      list: stored,
      added: inserted.length,
      duplicates: entries.length - inserted.length,
    };
  }

  async list(principal: Principal): Promise<ListRecord[]> {
    requireScope(principal, 'lists:read');
    return this.repo.list(principal.accountId);
  }

  async get(principal: Principal, listId: string): Promise<ListRecord> {
    requireScope(principal, 'lists:read');
    return this.find(principal, listId);
  }

  async listEntries(principal: Principal, listId: string, page: { limit: number; offset: number }) {
    requireScope(principal, 'lists:read');
    const list = await this.find(principal, listId);
    const entries = await this.repo.listEntries(list.id, page.limit + 1, page.offset);
    return { list, entries: entries.slice(0, page.limit), hasMore: entries.length > page.limit };
  }

  /** Deletes a list and its entries; 409 LIST_IN_USE while a policy of the account names it. */
  async delete(principal: Principal, listId: string): Promise<ListRecord> {
    requireScope(principal, 'lists:write');
    const list = await this.find(principal, listId);
    const policies = await this.hooks.policiesNaming(principal.accountId, list.name);
    if (policies.length > 0) {
      throw new AppError('LIST_IN_USE', `List "${list.name}" is named by ${policies.length} policies`, {
        list: list.name,
        policies: policies.slice(0, 20),
      });
    }
    await this.repo.delete(principal.accountId, list.id);
    await this.changed(principal, 'list.deleted', list, { before: listView(list) });
    return list;
  }

  /** Adds up to MAX_ENTRIES_PER_CALL entries; ones the list already holds (after normalisation) are counted. */
  async addEntries(principal: Principal, listId: string, rawEntries: unknown): Promise<ListChanges> {
    requireScope(principal, 'lists:write');
    const list = await this.find(principal, listId);
    const entries = parseEntries(rawEntries, 'entries');
    return this.add(principal, list, entries);
  }

  /**
   * Imports plain text, one entry a line: a term or phrase, or `regex:` and a pattern; blank lines and lines starting
   * with `#` are skipped. Up to the list's capacity in one call.
   */
  async importText(principal: Principal, listId: string, text: unknown): Promise<ListChanges> {
    requireScope(principal, 'lists:write');
    const list = await this.find(principal, listId);
    if (typeof text !== 'string' || text.trim() === '') {
      throw new AppError(
        'MISSING_REQUIRED_FIELD',
        'The body must be text, one entry a line (Content-Type: text/plain)',
        {
          field: 'body',
        },
      );
    }
    const lines = text.split(/\r?\n/);
    const entries: NormalisedEntry[] = [];
    lines.forEach((line, index) => {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) return;
      if (entries.length >= MAX_ENTRIES_PER_LIST) {
        throw new AppError('INVALID_PARAMETER', `An import has at most ${MAX_ENTRIES_PER_LIST} entries`, {
          reason: 'too_many_entries',
          max: MAX_ENTRIES_PER_LIST,
        });
      }
      const raw = trimmed.startsWith('regex:') ? { regex: trimmed.slice(6).trim() } : trimmed;
      try {
        entries.push(normaliseEntry(raw, `line ${index + 1}`));
      } catch (error) {
        if (error instanceof AppError) {
          throw new AppError(error.code, error.message, { ...error.details, line: index + 1 });
        }
        throw error;
      }
    });
    return this.add(principal, list, entries, 'list.entries_imported');
  }

  /**
   * Removes entries given as written (each is normalised, so "Sh1t" removes "shit") or by ID; `removed` counts what
   * the list held, `notFound` the rest.
   */
  async removeEntries(
    principal: Principal,
    listId: string,
    body: { entries?: unknown; ids?: unknown },
  ): Promise<{ list: ListRecord; removed: number; notFound: number }> {
    requireScope(principal, 'lists:write');
    const list = await this.find(principal, listId);
    const keys: string[] = [];
    if (body.entries !== undefined)
      keys.push(...parseEntries(body.entries, 'entries').map((e) => e.normalised));
    if (body.ids !== undefined) {
      if (!Array.isArray(body.ids) || body.ids.some((id) => typeof id !== 'string' || id.length > 100)) {
        throw new AppError('INVALID_PARAMETER', 'ids must be an array of entry IDs', { field: 'ids' });
      }
      keys.push(...(body.ids as string[]));
    }
    if (keys.length === 0) {
      throw new AppError('MISSING_REQUIRED_FIELD', 'Give entries (as written) or ids to remove', {
        field: 'entries',
      });
    }
    if (keys.length > MAX_ENTRIES_PER_CALL) {
      throw new AppError('TOO_MANY_ITEMS', `At most ${MAX_ENTRIES_PER_CALL} entries per request`, {
        max: MAX_ENTRIES_PER_CALL,
      });
    }
    const unique = [...new Set(keys)];
    const removed = await this.repo.removeEntries(list.id, unique, new Date().toISOString());
    if (removed.length > 0) {
      await this.changed(principal, 'list.entries_removed', list, {
        before: { removed: removed.length, entries: removed.slice(0, 100).map((e) => e.value) },
      });
    }
    return {
      list: (await this.repo.find(principal.accountId, list.id)) ?? list,
      removed: removed.length,
      notFound: unique.length - removed.length,
    };
  }

  /** The names among `names` that are lists of the account (policies may name only these). */
  async existing(accountId: string, names: string[]): Promise<Map<string, ListRecord>> {
    return new Map((await this.repo.byNames(accountId, names)).map((l) => [l.name, l]));
  }

  private async add(
    principal: Principal,
    list: ListRecord,
    entries: NormalisedEntry[],
    action = 'list.entries_added',
  ): Promise<ListChanges> {
    checkCapacity(list.entryCount, list.regexCount, entries);
    const now = new Date().toISOString();
    const inserted = await this.repo.addEntries(list.id, records(principal, list.id, entries, now), now);
    if (inserted.length > 0) {
      await this.changed(principal, action, list, {
        after: {
          received: entries.length,
          added: inserted.length,
          entries: inserted.slice(0, 100).map((e) => e.value),
        },
      });
    }
    return {
      list: (await this.repo.find(principal.accountId, list.id)) ?? list,
      received: entries.length,
      added: inserted.length,
      duplicates: entries.length - inserted.length,
    };
  }

  /** A list of the caller's account by ID or name; another account's list is indistinguishable from none. */
  private async find(principal: Principal, listId: string): Promise<ListRecord> {
    const list = listId.length <= 100 ? await this.repo.find(principal.accountId, listId) : null;
    if (!list) {
      throw new AppError('LIST_NOT_FOUND', `List "${listId.slice(0, 100)}" does not exist`, {
        listId: listId.slice(0, 100),
      });
    }
    return list;
  }
}
