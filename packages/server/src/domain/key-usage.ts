import type { KeyUsageRepository } from '../storage/repositories/key-usage.ts';
import { rejectUnknownParameters } from './decision-filters.ts';
import { type Principal, requireScope } from './principal.ts';
import { parseMonth } from './usage.ts';

const CONTENT_TYPES = ['text', 'image', 'video', 'multimodal'] as const;
type ContentTypeCounts = Record<(typeof CONTENT_TYPES)[number], number>;

const zero = (): ContentTypeCounts => ({ text: 0, image: 0, video: 0, multimodal: 0 });

/** The UTC month `YYYY-MM` as a half-open window of ISO timestamps (how `created_at` is stored on both engines). */
export function monthWindow(month: string): { from: string; to: string } {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return {
    from: new Date(Date.UTC(year, m - 1, 1)).toISOString(),
    to: new Date(Date.UTC(year, m, 1)).toISOString(),
  };
}

/**
 * `GET /v1/usage/keys`: which API key made the account's decisions in a month. Counted from the stored decisions
 * (the quota counter in `usage` is per account only): a decision is one check whatever it held, and decisions
 * already deleted by retention, or never stored (the compatibility endpoints), are not counted.
 */
export class KeyUsageService {
  constructor(private readonly repo: KeyUsageRepository) {}

  async get(principal: Principal, query: Record<string, unknown>) {
    // key names and prefixes are what GET /v1/keys shows: admin only
    requireScope(principal, 'admin');
    rejectUnknownParameters(query, ['month']);
    const m = parseMonth(query.month);
    const { from, to } = monthWindow(m);
    const [keys, counts] = await Promise.all([
      this.repo.keys(principal.accountId),
      this.repo.countByKey(principal.accountId, from, to),
    ]);
    const perKey = new Map<string | null, ContentTypeCounts>();
    for (const c of counts) {
      const sum = perKey.get(c.keyId) ?? zero();
      if (c.contentType in sum) sum[c.contentType as keyof ContentTypeCounts] += c.count;
      perKey.set(c.keyId, sum);
    }
    const total = (s: ContentTypeCounts) => s.text + s.image + s.video + s.multimodal;
    const known = new Set(keys.map((k) => k.id));
    const rows = [
      ...keys.map((k) => ({
        keyId: k.id,
        name: k.name as string | null,
        prefix: k.prefix as string | null,
        last4: k.last4 as string | null,
        revoked: k.revokedAt !== null,
        counts: perKey.get(k.id) ?? zero(),
      })),
      // a key ID that is not one of the account's keys (an operator key's decisions stored for this account)
      ...[...perKey.keys()]
        .filter((id): id is string => id !== null && !known.has(id))
        .map((id) => ({
          keyId: id,
          name: null,
          prefix: null,
          last4: null,
          revoked: false,
          counts: perKey.get(id)!,
        })),
    ]
      .map(({ counts: c, ...key }) => ({ ...key, checks: total(c), byContentType: c }))
      .sort((a, b) => b.checks - a.checks);
    const unattributed = perKey.get(null);
    return {
      accountId: principal.accountId,
      month: m,
      checks: [...perKey.values()].reduce((sum, c) => sum + total(c), 0),
      keys: rows,
      unattributed: unattributed ? total(unattributed) : 0,
    };
  }
}
