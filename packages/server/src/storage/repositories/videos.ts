import { randomBytes } from 'node:crypto';
import type { Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import type { VideosTable } from '../schema.ts';
import { staleProcessingIds } from './processing.ts';

export type VideoStatus = 'processing' | 'completed' | 'failed';

export interface VideoRecord {
  /** The decision ID the final result is stored under. */
  id: string;
  accountId: string;
  keyId: string;
  status: VideoStatus;
  policyId: string;
  /** The URL, or `upload:sha256:<hex>`. */
  content: string;
  /** The local copy ffmpeg reads, relative to the data directory. */
  file: string;
  webhookUrl: string | null;
  frameInterval: number;
  maxFrames: number;
  maxDuration: number;
  duration: number;
  framesTotal: number;
  framesProcessed: number;
  /** Quota units reserved at submission (0 for accounts without a quota), given back when the video ends. */
  reservedFrames: number;
  reservedMonth: string;
  estimatedSeconds: number;
  /** The request as submitted (for the decision's cURL rendering). */
  request: Record<string, unknown>;
  requestId: string | null;
  error: { code: string; message: string } | null;
  startedAt: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

function toVideo(r: VideosTable): VideoRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    status: r.status as VideoStatus,
    policyId: r.policy_id,
    content: r.content,
    file: r.file,
    webhookUrl: r.webhook_url,
    frameInterval: Number(r.frame_interval),
    maxFrames: Number(r.max_frames),
    maxDuration: Number(r.max_duration),
    duration: Number(r.duration),
    framesTotal: Number(r.frames_total),
    framesProcessed: Number(r.frames_processed),
    reservedFrames: Number(r.reserved_frames),
    reservedMonth: r.reserved_month,
    estimatedSeconds: Number(r.estimated_seconds),
    request: fromJson(r.request),
    requestId: r.request_id,
    error: fromJson(r.error),
    startedAt: r.started_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
}

export class VideoRepository {
  constructor(private readonly db: Db) {}

  async insert(v: VideoRecord): Promise<void> {
    await this.db
      .insertInto('videos')
      .values({
        id: v.id,
        account_id: v.accountId,
        key_id: v.keyId,
        status: v.status,
        policy_id: v.policyId,
        content: v.content,
        file: v.file,
        webhook_url: v.webhookUrl,
        frame_interval: v.frameInterval,
        max_frames: v.maxFrames,
        max_duration: v.maxDuration,
        duration: v.duration,
        frames_total: v.framesTotal,
        frames_processed: v.framesProcessed,
        reserved_frames: v.reservedFrames,
        reserved_month: v.reservedMonth,
        estimated_seconds: v.estimatedSeconds,
        request: toJson(v.request),
        request_id: v.requestId,
        error: v.error === null ? null : toJson(v.error),
        started_at: v.startedAt,
        created_at: v.createdAt,
        updated_at: v.updatedAt,
        completed_at: v.completedAt,
      })
      .execute();
  }

  /** `executor`: the caller's transaction, when reading inside one. */
  async get(id: string, accountId?: string, executor: Db = this.db): Promise<VideoRecord | null> {
    let query = executor.selectFrom('videos').selectAll().where('id', '=', id);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const row = await query.executeTakeFirst();
    return row ? toVideo(row) : null;
  }

  /** A (re)started analysis: progress from zero, the start time for the frame-rate estimate. */
  async started(id: string, at: string): Promise<void> {
    await this.db
      .updateTable('videos')
      .set({ frames_processed: 0, started_at: at, updated_at: at })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .execute();
  }

  async progress(id: string, framesProcessed: number, at: string): Promise<void> {
    await this.db
      .updateTable('videos')
      .set({ frames_processed: framesProcessed, updated_at: at })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .execute();
  }

  /** Moves a processing video to its final state; false when it was not processing any more. */
  async finish(
    trx: Db,
    id: string,
    status: 'completed' | 'failed',
    update: { framesProcessed?: number; error?: { code: string; message: string } | null },
    at: string,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('videos')
      .set({
        status,
        ...(update.framesProcessed !== undefined && { frames_processed: update.framesProcessed }),
        error: update.error ? toJson(update.error) : null,
        updated_at: at,
        completed_at: at,
      })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Videos of the account still waiting or in analysis. */
  async countProcessing(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('videos')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('account_id', '=', accountId)
      .where('status', '=', 'processing')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  processingIds(updatedBefore: string, limit = 100): Promise<string[]> {
    return staleProcessingIds(this.db, 'videos', updatedBefore, limit);
  }

  /** Files of videos that are not processing any more (their local copy can go). */
  async finishedFiles(files: string[]): Promise<Set<string>> {
    if (files.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('videos')
      .select(['file', 'status'])
      .where('file', 'in', files)
      .execute();
    const processing = new Set(rows.filter((r) => r.status === 'processing').map((r) => r.file));
    return new Set(files.filter((f) => !processing.has(f)));
  }

  /** A random server secret created once and shared by every instance on this database. */
  async secret(name: string): Promise<Buffer> {
    await this.db
      .insertInto('server_secrets')
      .values({ name, value: randomBytes(32).toString('base64'), created_at: new Date().toISOString() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('server_secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return Buffer.from(row.value, 'base64');
  }
}
