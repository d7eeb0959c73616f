import { ACTION_SEVERITY } from '../domain/taxonomy.ts';
import type { BankRecord, BankRepository } from '../storage/repositories/banks.ts';
import { HashIndex } from './hash-index.ts';
import { hashImage } from './image-hashes.ts';
import type { BankMatch, ImageHashes, PolicyBankRule } from './types.ts';

/** What an evaluator asks before running a model: does this image match one of the policy's banks? */
export interface BankScreen {
  screen(bytes: Uint8Array, contentRef: string): Promise<BankMatch | null>;
}

/** Bank indexes kept in memory at once (each one bank's items); the least recently loaded goes first. */
const MAX_CACHED_BANKS = 200;

/**
 * Matches image hashes against an account's banks. Each bank's index is built once and kept while the bank's
 * `version` in the database is unchanged; every lookup reads the versions (one small query), so an item added
 * or deleted through any instance is seen by every instance at its next lookup.
 */
export class BankMatcher {
  private readonly cache = new Map<string, { version: number; index: HashIndex }>();
  private readonly loading = new Map<string, Promise<HashIndex>>();

  constructor(
    private readonly repo: BankRepository,
    private readonly maxPixels: number,
  ) {}

  /** A screen for one check under one policy; null when the policy names no banks. */
  screenFor(accountId: string, rules: readonly PolicyBankRule[] | undefined): BankScreen | null {
    if (!rules || rules.length === 0) return null;
    return {
      screen: async (bytes, contentRef) =>
        this.match(accountId, rules, await hashImage(bytes, this.maxPixels), contentRef),
    };
  }

  /** The most severe matching rule's match (the closest item among equals); null when nothing matches. */
  async match(
    accountId: string,
    rules: readonly PolicyBankRule[],
    hashes: ImageHashes,
    contentRef: string,
  ): Promise<BankMatch | null> {
    const banks = await this.repo.versions(
      accountId,
      rules.map((r) => r.bank),
    );
    let best: BankMatch | null = null;
    for (const rule of rules) {
      // A bank deleted after the policy was saved matches nothing.
      const bank = banks.find((b) => b.name === rule.bank);
      if (!bank || bank.itemCount === 0) continue;
      const hit = (await this.index(bank)).lookup(hashes, rule.maxDistance);
      if (!hit) continue;
      const match: BankMatch = {
        bank: bank.name,
        bankId: bank.id,
        itemId: hit.row.id,
        label: hit.row.label,
        matchedOn: hit.matchedOn,
        distance: hit.distance,
        maxDistance: rule.maxDistance,
        action: rule.action,
        contentRef,
      };
      const severer = best ? ACTION_SEVERITY[match.action] - ACTION_SEVERITY[best.action] : 1;
      if (!best || severer > 0 || (severer === 0 && match.distance < best.distance)) best = match;
    }
    return best;
  }

  private async index(bank: BankRecord): Promise<HashIndex> {
    const cached = this.cache.get(bank.id);
    if (cached && cached.version === bank.version) return cached.index;
    const key = `${bank.id}@${bank.version}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.repo
        .indexRows(bank.id)
        .then((rows) => {
          const index = new HashIndex(rows);
          this.cache.delete(bank.id);
          this.cache.set(bank.id, { version: bank.version, index });
          if (this.cache.size > MAX_CACHED_BANKS) this.cache.delete(this.cache.keys().next().value!);
          return index;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }
}
