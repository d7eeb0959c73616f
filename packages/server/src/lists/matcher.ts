import type { ListRecord, ListRepository } from '../storage/repositories/lists.ts';
import { CompiledList } from './compiled.ts';
import { MAX_MATCHES_PER_LIST } from './limits.ts';
import type { ListMatch, PolicyListRule } from './types.ts';

/** Entries held compiled in memory at once, over all lists; the least recently built list goes first. */
const MAX_CACHED_ENTRIES = 1_000_000;
const MAX_CACHED_LISTS = 200;
/**
 * How long an instance trusts the list versions it read: a change through this instance is seen at once (the
 * service tells the matcher), one through another instance within this time.
 */
const VERSION_TTL_MS = 1000;

/**
 * Matches texts against an account's lists. A list is compiled once per version and kept; a check reads no list
 * from the database, only (at most once a second per account) the lists' versions.
 */
export class ListMatcher {
  private readonly compiled = new Map<string, { version: number; list: CompiledList }>();
  private readonly building = new Map<string, Promise<CompiledList>>();
  private readonly versions = new Map<string, { at: number; lists: Map<string, ListRecord> }>();
  private cachedEntries = 0;

  constructor(private readonly repo: ListRepository) {}

  /** Forgets the versions read for an account (its lists changed through this instance). */
  changed(accountId: string): void {
    this.versions.delete(accountId);
  }

  /**
   * The entries of the policy's lists found in `text`, in the order of the policy's rules (each list's in the order
   * of the text, at most MAX_MATCHES_PER_LIST). A list deleted after the policy was saved matches nothing.
   */
  async match(
    accountId: string,
    rules: readonly PolicyListRule[] | undefined,
    text: string,
  ): Promise<ListMatch[]> {
    if (!rules || rules.length === 0 || text === '') return [];
    const lists = await this.listsOf(accountId, rules);
    const matches: ListMatch[] = [];
    for (const rule of rules) {
      const list = lists.get(rule.list);
      if (!list || list.entryCount === 0) continue;
      const compiled = await this.compile(list);
      for (const hit of compiled.match(text, MAX_MATCHES_PER_LIST)) {
        const entry = compiled.entries[hit.entry]!;
        matches.push({
          list: list.name,
          listId: list.id,
          kind: list.kind,
          entryId: entry.id,
          entry: entry.value,
          entryType: entry.type,
          start: hit.start,
          end: hit.end,
          ...(list.kind === 'block'
            ? { action: rule.action ?? list.action ?? 'block' }
            : { caps: rule.caps ?? list.caps ?? {} }),
        });
      }
    }
    return matches;
  }

  private async listsOf(
    accountId: string,
    rules: readonly PolicyListRule[],
  ): Promise<Map<string, ListRecord>> {
    const now = Date.now();
    const cached = this.versions.get(accountId);
    if (cached && now - cached.at < VERSION_TTL_MS && rules.every((r) => cached.lists.has(r.list))) {
      return cached.lists;
    }
    // every list of the account: few (at most 100) and small rows, and one read serves every policy of the account
    const lists = new Map((await this.repo.list(accountId)).map((l) => [l.name, l]));
    this.versions.set(accountId, { at: now, lists });
    if (this.versions.size > 10_000) this.versions.delete(this.versions.keys().next().value!);
    return lists;
  }

  private async compile(list: ListRecord): Promise<CompiledList> {
    const cached = this.compiled.get(list.id);
    if (cached && cached.version === list.version) {
      // most recently used last
      this.compiled.delete(list.id);
      this.compiled.set(list.id, cached);
      return cached.list;
    }
    const key = `${list.id}@${list.version}`;
    let pending = this.building.get(key);
    if (!pending) {
      pending = this.repo
        .matchRows(list.id)
        .then((rows) => {
          const compiled = new CompiledList(rows);
          const old = this.compiled.get(list.id);
          if (old) this.cachedEntries -= old.list.entries.length;
          this.compiled.delete(list.id);
          this.compiled.set(list.id, { version: list.version, list: compiled });
          this.cachedEntries += rows.length;
          while (
            this.compiled.size > 1 &&
            (this.compiled.size > MAX_CACHED_LISTS || this.cachedEntries > MAX_CACHED_ENTRIES)
          ) {
            const [oldest, value] = this.compiled.entries().next().value!;
            this.compiled.delete(oldest);
            this.cachedEntries -= value.list.entries.length;
          }
          return compiled;
        })
        .finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }
}
