import type { Db } from '../storage/database.ts';
import { type DecisionRecord, DecisionRepository, decisionRow } from '../storage/repositories/decisions.ts';
import { AppError } from './errors.ts';
import { type Principal, requireScope } from './principal.ts';

/** Something that must be written in the same transaction as a decision (events, usage): the outbox hook. */
export type DecisionSideWrite = (trx: Db, decisions: DecisionRecord[]) => Promise<void>;

/** Stores decisions durably; side writes registered by other modules join the same transaction. */
export class DecisionStore {
  private readonly sideWrites: DecisionSideWrite[] = [];
  readonly repository: DecisionRepository;

  constructor(private readonly db: Db) {
    this.repository = new DecisionRepository(db);
  }

  addSideWrite(write: DecisionSideWrite): void {
    this.sideWrites.push(write);
  }

  async save(decisions: DecisionRecord[]): Promise<void> {
    if (decisions.length === 0) return;
    if (this.sideWrites.length === 0 && decisions.length === 1) {
      await this.repository.insert(decisions[0]!);
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('decisions').values(decisions.map(decisionRow)).execute();
      for (const write of this.sideWrites) await write(trx, decisions);
    });
  }
}

/** The check result of interface §2.1, with the extension fields we add. */
export function checkResultView(d: DecisionRecord) {
  return {
    decisionId: d.decisionId,
    safe: d.safe,
    flagged: d.flagged,
    action: d.action,
    categories: d.categories.map(({ action: _action, ...category }) => category),
    provider: d.provider,
    latency: d.latency,
    cost: d.cost,
    policyId: d.policyId,
    policyVersion: d.policyVersion,
    contentType: d.contentType,
    language: d.language,
    modelVersion: d.modelVersion,
    timestamp: d.timestamp,
    ...(d.replayOf !== null && { replayOf: d.replayOf }),
    ...(d.results !== null && { results: d.results }),
  };
}

/** The stored decision record of decisions §4. */
export function decisionView(d: DecisionRecord) {
  return {
    decisionId: d.decisionId,
    content: d.content,
    contentType: d.contentType,
    safe: d.safe,
    flagged: d.flagged,
    action: d.action,
    categories: d.categories.map(({ action: _action, ...category }) => category),
    policyId: d.policyId,
    policyVersion: d.policyVersion,
    provider: d.provider,
    modelVersion: d.modelVersion,
    latency: d.latency,
    cost: d.cost,
    language: d.language,
    metadata: d.metadata,
    requestId: d.requestId,
    timestamp: d.timestamp,
    replayOf: d.replayOf,
    ...(d.results !== null && { results: d.results }),
  };
}

/** Renders a shell-safe single-quoted argument: embedded single quotes become '\''. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export class DecisionService {
  constructor(
    private readonly store: DecisionStore,
    private readonly publicUrl: string,
  ) {}

  async get(principal: Principal, decisionId: string): Promise<DecisionRecord> {
    requireScope(principal, 'decisions:read');
    return this.find(principal.accountId, decisionId);
  }

  async find(accountId: string, decisionId: string): Promise<DecisionRecord> {
    const record = await this.store.repository.get(accountId, decisionId);
    if (!record)
      throw new AppError('DECISION_NOT_FOUND', `Decision ${decisionId} does not exist`, { decisionId });
    return record;
  }

  async list(principal: Principal, limit: number, offset: number) {
    requireScope(principal, 'decisions:read');
    const rows = await this.store.repository.list(principal.accountId, limit + 1, offset);
    return { decisions: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /** A single cURL command reproducing the original check (decisions §4); never the real key. */
  async curl(principal: Principal, decisionId: string): Promise<string> {
    const record = await this.get(principal, decisionId);
    const { path, body } = record.request as { path?: string; body?: unknown };
    const url = `${this.publicUrl}${path ?? '/v1/check'}`;
    return [
      `curl -sS -X POST ${shellQuote(url)}`,
      `-H "Authorization: Bearer $VERDICT_API_KEY"`,
      `-H 'Content-Type: application/json'`,
      `--data-raw ${shellQuote(JSON.stringify(body ?? {}))}`,
    ].join(' \\\n  ');
  }
}
