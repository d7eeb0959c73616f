import { CompiledQuery } from 'kysely';
import type { BankMatch } from '../../banks/types.ts';
import type { DecisionFilter } from '../../domain/decision-filters.ts';
import type { CategoryResult, Highlight } from '../../domain/engine.ts';
import type { MediaRef } from '../../domain/media.ts';
import type { ProviderAttempt, ProviderScores } from '../../domain/routing.ts';
import type { Action, CategoryName, ContentType } from '../../domain/taxonomy.ts';
import type { ListMatch } from '../../lists/types.ts';
import type { OcrResult } from '../../ocr/engine.ts';
import { precompile } from '../compiled.ts';
import type { Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import type { DecisionsTable } from '../schema.ts';
import { filterConditions } from './decision-conditions.ts';

/** A video frame's position and scores (every category judged). */
export interface ReplayFrame {
  frameNumber: number;
  timestamp: number;
  scores: Partial<Record<CategoryName, number>>;
  /** A frame a hash bank decided (no model ran on it). */
  bankMatch?: BankMatch;
}

/** A multi-modal item's judgement under no policy in particular: what its replay re-applies a policy to. */
export interface ReplayItem {
  scores: Partial<Record<CategoryName, number>>;
  evaluated: CategoryName[];
  highlights?: Partial<Record<CategoryName, Highlight[]>>;
  /** a video item's frames */
  frames?: ReplayFrame[];
}

/** What a replay needs beyond a decision's own fields. */
export interface ReplayData {
  /** highlights of judged categories the policy did not list */
  highlights?: Partial<Record<CategoryName, Highlight[]>>;
  /** a multi-modal decision's items, in the order of its results */
  items?: ReplayItem[];
  /** text routed beyond `local` (issue 19): each provider's own scores, reused by replays */
  providers?: Record<string, ProviderScores>;
  /** which providers were asked and why */
  routing?: ProviderAttempt[];
  /** the match-list entries found in the text (issue 18), shown as `listMatches` */
  listMatches?: ListMatch[];
}

/** The stored decision record of decisions §4, plus what replay and cURL rendering need. */
export interface DecisionRecord {
  decisionId: string;
  accountId: string;
  content: string;
  contentType: ContentType | 'multimodal';
  safe: boolean;
  flagged: boolean;
  action: Action;
  categories: CategoryResult[];
  rawScores: Partial<Record<CategoryName, number>>;
  evaluated: CategoryName[];
  policyId: string;
  policyVersion: number;
  provider: string;
  modelVersion: string | null;
  latency: number;
  cost: number;
  language: string | null;
  metadata: Record<string, unknown> | null;
  requestId: string | null;
  replayOf: string | null;
  /** The original request body (content by reference for media), for replay and cURL rendering. */
  request: Record<string, unknown>;
  /** Per-item results of a multi-modal decision. */
  results: unknown[] | null;
  timestamp: string;
  /** Images evaluated for this decision, by reference and fingerprint (never the bytes). */
  media?: MediaRef[] | null;
  /** What a replay under another policy needs beyond the fields above (never shown). */
  replayData?: ReplayData | null;
  /** The bank item that decided this decision before any model ran (issue 20). */
  bankMatch?: BankMatch | null;
  /** Text read in the image and judged by the text model (issue 20). */
  ocr?: OcrResult | null;
  /** The API key that made the decision (null for decisions stored before keys were recorded). */
  keyId?: string | null;
  /** `doNotStore: true` in the request: stored (and announced in events) without content or highlight text. */
  doNotStore?: boolean;
}

/** Marks a stored request body whose `content` was the decision's own content column (not repeated). */
const CONTENT_IS_COLUMN = '$contentColumn';

/**
 * The request as stored: a body's `content` equal to the decision's content (a text, an image URL or reference,
 * up to 32 KB) is kept once, in the content column, and put back by withContent.
 */
function withoutContent(request: Record<string, unknown>, content: string): Record<string, unknown> {
  const body = request.body as Record<string, unknown> | undefined;
  if (!body || body.content !== content) return request;
  const { content: _, ...rest } = body;
  return { ...request, body: { [CONTENT_IS_COLUMN]: true, ...rest } };
}

function withContent(request: Record<string, unknown>, content: string): Record<string, unknown> {
  const body = request.body as Record<string, unknown> | undefined;
  if (body?.[CONTENT_IS_COLUMN] !== true) return request;
  const { [CONTENT_IS_COLUMN]: _, ...rest } = body;
  return { ...request, body: { content, ...rest } };
}

/** A stored row as a decision record (the inverse of `decisionRow`). */
export function toRecord(row: DecisionsTable): DecisionRecord {
  return {
    decisionId: row.id,
    accountId: row.account_id,
    content: row.content,
    contentType: row.content_type as DecisionRecord['contentType'],
    safe: row.safe === 1,
    flagged: row.flagged === 1,
    action: row.action as Action,
    categories: fromJson<CategoryResult[]>(row.categories),
    rawScores: fromJson(row.raw_scores),
    evaluated: fromJson<CategoryName[]>(row.evaluated),
    policyId: row.policy_id,
    policyVersion: row.policy_version,
    provider: row.provider,
    modelVersion: row.model_version,
    latency: row.latency,
    cost: row.cost,
    language: row.language,
    metadata: fromJson(row.metadata),
    requestId: row.request_id,
    replayOf: row.replay_of,
    request: withContent(fromJson(row.request), row.content),
    results: fromJson(row.results),
    timestamp: row.created_at,
    media: fromJson<MediaRef[]>(row.media ?? null),
    replayData: fromJson<ReplayData>(row.replay_data ?? null),
    bankMatch: fromJson<BankMatch>(row.bank_match ?? null),
    ocr: fromJson<OcrResult>(row.ocr ?? null),
    keyId: row.key_id ?? null,
  };
}

export function decisionRow(d: DecisionRecord): DecisionsTable {
  return {
    id: d.decisionId,
    account_id: d.accountId,
    content: d.content,
    content_type: d.contentType,
    safe: d.safe ? 1 : 0,
    flagged: d.flagged ? 1 : 0,
    action: d.action,
    categories: toJson(d.categories),
    raw_scores: toJson(d.rawScores),
    evaluated: toJson(d.evaluated),
    policy_id: d.policyId,
    policy_version: d.policyVersion,
    provider: d.provider,
    model_version: d.modelVersion,
    latency: d.latency,
    cost: d.cost,
    language: d.language,
    metadata: d.metadata === null ? null : toJson(d.metadata),
    request_id: d.requestId,
    replay_of: d.replayOf,
    request: toJson(withoutContent(d.request, d.content)),
    results: d.results === null ? null : toJson(d.results),
    created_at: d.timestamp,
    media: d.media ? toJson(d.media) : null,
    replay_data: d.replayData ? toJson(d.replayData) : null,
    bank_match: d.bankMatch ? toJson(d.bankMatch) : null,
    ocr: d.ocr ? toJson(d.ocr) : null,
    key_id: d.keyId ?? null,
  };
}

const PG_ROWS_PER_INSERT = 500; // 28 parameters a row, well under PostgreSQL's 65,535

/**
 * The statements that insert `decisions`: on SQLite one prepared statement per row (in-process and cached, so
 * cheap); on PostgreSQL one multi-row statement per 500 rows, since every statement there is a round trip.
 */
export function decisionInserts(
  db: Db,
  engine: 'sqlite' | 'postgres',
  template: DecisionRecord,
): (decisions: DecisionRecord[]) => CompiledQuery[] {
  const params = (d: DecisionRecord) => Object.values(decisionRow(d)).map((v) => v ?? null);
  if (engine === 'sqlite') {
    const one = precompile(db.insertInto('decisions').values(decisionRow(template)), params);
    return (decisions) => decisions.map((d) => one(d));
  }
  const columns = Object.keys(decisionRow(template));
  const head = `insert into "decisions" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  const sqlFor = new Map<number, string>();
  const sqlOf = (rows: number) => {
    let text = sqlFor.get(rows);
    if (!text) {
      const tuples: string[] = [];
      for (let r = 0; r < rows; r++) {
        tuples.push(`(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
      }
      text = head + tuples.join(', ');
      if (sqlFor.size < 64) sqlFor.set(rows, text);
    }
    return text;
  };
  return (decisions) => {
    const queries: CompiledQuery[] = [];
    for (let i = 0; i < decisions.length; i += PG_ROWS_PER_INSERT) {
      const chunk = decisions.slice(i, i + PG_ROWS_PER_INSERT);
      queries.push(CompiledQuery.raw(sqlOf(chunk.length), chunk.flatMap(params)));
    }
    return queries;
  };
}

export class DecisionRepository {
  constructor(
    private readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  async get(accountId: string, decisionId: string): Promise<DecisionRecord | null> {
    const row = await this.db
      .selectFrom('decisions')
      .selectAll()
      .where('id', '=', decisionId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** Newest first; IDs are time-sortable so ordering by ID is ordering by creation. */
  async list(
    accountId: string,
    limit: number,
    offset: number,
    filter: DecisionFilter = {},
  ): Promise<DecisionRecord[]> {
    let query = this.db.selectFrom('decisions').selectAll().where('account_id', '=', accountId);
    for (const condition of filterConditions(this.engine, filter)) query = query.where(condition);
    const rows = await query.orderBy('id', 'desc').limit(limit).offset(offset).execute();
    return rows.map(toRecord);
  }

  /** Keyset page for walking every match (the export): newest first, strictly older than `before` when given. */
  async listBefore(
    accountId: string,
    before: string | null,
    limit: number,
    filter: DecisionFilter = {},
  ): Promise<DecisionRecord[]> {
    let query = this.db.selectFrom('decisions').selectAll().where('account_id', '=', accountId);
    if (before !== null) query = query.where('id', '<', before);
    for (const condition of filterConditions(this.engine, filter)) query = query.where(condition);
    const rows = await query.orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toRecord);
  }
}
