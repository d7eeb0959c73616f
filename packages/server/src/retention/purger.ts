import type { Db } from '../storage/database.ts';
import { decisionRow, toRecord } from '../storage/repositories/decisions.ts';
import { withoutContent } from './redact.ts';

/** Rows changed per statement: each batch is one short transaction, so purges never hold the writer for long. */
const BATCH = 500;
/** A sweep stops after this long and goes on at the next sweep, so a backlog never starves the service. */
const SWEEP_BUDGET_MS = 2000;

export interface RetentionSettings {
  /** How long decision content is kept (then redacted; the decision and its scores stay); null: for ever. */
  contentMs: number | null;
  /** How long decisions are kept at all (then deleted); null: for ever. */
  decisionMs: number | null;
}

export interface SweepResult {
  redacted: number;
  deleted: number;
}

/**
 * Retention (VERDICT_CONTENT_RETENTION, VERDICT_DECISION_RETENTION), run by the worker's periodic sweep in bounded
 * batches off the request path. Redacting a decision empties its `content` (an empty content marks it: stored
 * content is never empty), the text of its highlights and the text read in its images, wherever they are stored (categories, replay data, the
 * items of a multi-modal result); its scores, action, policy and metadata stay. Delivered events older than the
 * content cutoff are deleted too, since their payload repeats the decision's content.
 */
export class RetentionPurger {
  constructor(
    private readonly db: Db,
    readonly settings: RetentionSettings,
  ) {}

  get enabled(): boolean {
    return this.settings.contentMs !== null || this.settings.decisionMs !== null;
  }

  async sweep(now = Date.now()): Promise<SweepResult> {
    const result: SweepResult = { redacted: 0, deleted: 0 };
    const deadline = performance.now() + SWEEP_BUDGET_MS;
    if (this.settings.decisionMs !== null) {
      const before = new Date(now - this.settings.decisionMs).toISOString();
      while (performance.now() < deadline) {
        const n = await this.deleteBatch(before);
        result.deleted += n;
        if (n < BATCH) break;
      }
    }
    if (this.settings.contentMs !== null) {
      const before = new Date(now - this.settings.contentMs).toISOString();
      while (performance.now() < deadline) {
        const n = await this.redactBatch(before);
        result.redacted += n;
        if (n < BATCH) break;
      }
      await this.db
        .deleteFrom('events')
        .where('dispatched_at', 'is not', null)
        .where('created_at', '<', before)
        .execute();
    }
    return result;
  }

  private async deleteBatch(before: string): Promise<number> {
    const ids = await this.db
      .selectFrom('decisions')
      .select('id')
      .where('created_at', '<', before)
      .limit(BATCH)
      .execute();
    if (ids.length === 0) return 0;
    const decisionIds = ids.map((r) => r.id);
    await this.db.transaction().execute(async (trx) => {
      // the human review of a decision (issue 18) goes with it
      for (const table of ['review_items', 'reviews', 'appeals'] as const)
        await trx.deleteFrom(table).where('decision_id', 'in', decisionIds).execute();
      await trx.deleteFrom('decisions').where('id', 'in', decisionIds).execute();
    });
    return ids.length;
  }

  private async redactBatch(before: string): Promise<number> {
    const rows = await this.db
      .selectFrom('decisions')
      .selectAll()
      .where('created_at', '<', before)
      .where('content', '<>', '')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return 0;
    await this.db.transaction().execute(async (trx) => {
      for (const row of rows) {
        // the same redaction as a doNotStore decision's, so the two never disagree on what content is
        const redacted = decisionRow(withoutContent(toRecord(row)));
        await trx
          .updateTable('decisions')
          .set({
            content: redacted.content,
            request: redacted.request,
            categories: redacted.categories,
            replay_data: redacted.replay_data,
            results: redacted.results,
            ocr: redacted.ocr,
            media: redacted.media,
            bank_match: redacted.bank_match,
          })
          .where('id', '=', row.id)
          .execute();
      }
    });
    return rows.length;
  }
}
