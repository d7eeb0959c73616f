import type { DecisionStatsRepository, StatsBucket } from '../storage/repositories/decision-stats.ts';
import { parseTime, queryParameter, rejectUnknownParameters } from './decision-filters.ts';
import { AppError } from './errors.ts';
import { type Principal, requireScope } from './principal.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEP: Record<string, number | undefined> = { minute: MINUTE, hour: HOUR, day: DAY };
/** a bucket's key: the prefix of its ISO 8601 start (as the repository groups created_at) */
const KEY_LENGTH: Record<StatsBucket, number> = { minute: 16, hour: 13, day: 10 };
/** bounds the response (and the work): 1000 hourly buckets is about six weeks, 1000 minutes about 16 hours */
export const MAX_BUCKETS = 1000;

export interface StatsQuery {
  from?: unknown;
  to?: unknown;
  bucket?: unknown;
}

interface Counts {
  count: number;
  actions: { allow: number; warn: number; flag: number; block: number };
  flagged: number;
  flagRate: number;
  blockRate: number;
  latencyP50: number | null;
  latencyP99: number | null;
  categories: Record<string, number>;
}

const rate = (part: number, whole: number) =>
  whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;

function counts(
  row: { count: number; actions: Counts['actions']; flagged: number } | undefined,
  latency: { p50: number; p99: number } | undefined,
  categories: Record<string, number>,
): Counts {
  const count = row?.count ?? 0;
  const actions = row?.actions ?? { allow: 0, warn: 0, flag: 0, block: 0 };
  const flagged = row?.flagged ?? 0;
  return {
    count,
    actions,
    flagged,
    flagRate: rate(flagged, count),
    blockRate: rate(actions.block, count),
    latencyP50: count > 0 && latency ? latency.p50 : null,
    latencyP99: count > 0 && latency ? latency.p99 : null,
    categories,
  };
}

/** Volume, action mix, rates, latency percentiles and category triggers of an account's decisions over time. */
export class StatsService {
  constructor(private readonly stats: DecisionStatsRepository) {}

  async get(principal: Principal, query: StatsQuery) {
    requireScope(principal, 'decisions:read');
    rejectUnknownParameters(query as Record<string, unknown>, ['from', 'to', 'bucket']);
    const one = (field: keyof StatsQuery) => queryParameter(query as Record<string, unknown>, field);
    const toText = one('to');
    const to = toText ? parseTime('to', toText) : new Date().toISOString();
    const fromText = one('from');
    const from = fromText ? parseTime('from', fromText) : new Date(Date.parse(to) - DAY).toISOString();
    if (from >= to) throw new AppError('INVALID_PARAMETER', 'from must be before to', { field: 'from' });
    const bucketText = one('bucket');
    const span = Date.parse(to) - Date.parse(from);
    const bucket: StatsBucket =
      bucketText === undefined
        ? span <= 2 * HOUR
          ? 'minute'
          : span <= 2 * DAY
            ? 'hour'
            : 'day'
        : (bucketText as StatsBucket);
    const step = STEP[bucket];
    if (step === undefined) {
      throw new AppError('INVALID_PARAMETER', 'bucket must be minute, hour or day', {
        field: 'bucket',
        allowed: Object.keys(STEP),
      });
    }
    const first = Math.floor(Date.parse(from) / step) * step;
    if ((Date.parse(to) - first) / step > MAX_BUCKETS) {
      throw new AppError('INVALID_PARAMETER', `The range holds more than ${MAX_BUCKETS} ${bucket} buckets`, {
        field: 'bucket',
        maxBuckets: MAX_BUCKETS,
      });
    }

    const { accountId } = principal;
    const [rows, latency, totalLatency, triggers] = await Promise.all([
      this.stats.buckets(accountId, from, to, bucket),
      this.stats.latencyPercentiles(accountId, from, to, bucket),
      this.stats.latencyPercentiles(accountId, from, to, null),
      this.stats.categoryTriggers(accountId, from, to, bucket),
    ]);
    const byKey = new Map(rows.map((row) => [row.key, row]));
    const categoriesByKey = new Map<string, Record<string, number>>();
    const totalCategories: Record<string, number> = {};
    for (const t of triggers) {
      const entry = categoriesByKey.get(t.key) ?? {};
      entry[t.category] = t.count;
      categoriesByKey.set(t.key, entry);
      totalCategories[t.category] = (totalCategories[t.category] ?? 0) + t.count;
    }
    const buckets = [];
    for (let start = first; start < Date.parse(to); start += step) {
      const iso = new Date(start).toISOString();
      const key = iso.slice(0, KEY_LENGTH[bucket]);
      buckets.push({
        start: iso,
        ...counts(byKey.get(key), latency.get(key), categoriesByKey.get(key) ?? {}),
      });
    }
    const total = rows.reduce(
      (sum, row) => {
        sum.count += row.count;
        sum.flagged += row.flagged;
        for (const action of ['allow', 'warn', 'flag', 'block'] as const)
          sum.actions[action] += row.actions[action];
        return sum;
      },
      { count: 0, flagged: 0, actions: { allow: 0, warn: 0, flag: 0, block: 0 } },
    );
    return { from, to, bucket, buckets, totals: counts(total, totalLatency.get(''), totalCategories) };
  }
}
