import fs from 'node:fs';
import path from 'node:path';
import { type BlobStore, videoKey } from '../blobs/index.ts';
import type { Queue } from '../jobs/queue.ts';
import { NotAVideoError, probeVideo, type VideoInfo } from '../media/video/probe.ts';
import { downloadVideo, parseVideoUrl, type VideoFetchOptions } from '../media/video/source.ts';
import type { ImageTextReader } from '../ocr/judge.ts';
import type { Provider } from '../providers/provider.ts';
import type { Db } from '../storage/database.ts';
import type { UsageRepository } from '../storage/repositories/usage.ts';
import type { VideoRecord, VideoRepository } from '../storage/repositories/videos.ts';
import type { CheckService } from './checks.ts';
import { requireField, validateDoNotStore } from './content.ts';
import type { DecisionSideWrite, DecisionStore } from './decisions.ts';
import { AppError, isAppError } from './errors.ts';
import { buildEvent, type EventOutbox } from './events.ts';
import { newId } from './ids.ts';
import type { PolicyService } from './policies/service.ts';
import { type Principal, requireAnyScope, requireScope, workerPrincipal } from './principal.ts';
import { monthOf, type UsageService, units } from './usage.ts';
import { analyzeVideoFile } from './video-analysis.ts';
import type { EvidenceStore } from './video-evidence.ts';
import {
  checkDecodeCost,
  parseVideoOptions,
  plannedFrames,
  samplingInterval,
  type VideoOptions,
} from './video-options.ts';
import { videoResultView, videoStatusView } from './video-views.ts';
import { assertPublicWebhookUrl, parseWebhookUrl } from './webhook-url.ts';

export const VIDEO_TASK = 'video.process';
export const VIDEO_MAINTENANCE_TASK = 'video.maintain';
const UPLOADS = 'uploads';
/** Progress is written at most this often. */
const PROGRESS_EVERY_MS = 500;

export interface VideoServiceOptions {
  dataDir: string;
  allowPrivateUrls: boolean;
  fetch: VideoFetchOptions;
  /** Frames classified at once while the next ones are extracted (≈ 2 × image workers). */
  maxInFlight: number;
  /** Videos analysed at once by this process; more wait (each holds an ffmpeg decoder). Default 2. */
  maxConcurrent?: number;
  /** Videos an account may have waiting or in analysis; more are refused (429). */
  maxPendingPerAccount: number;
  /** New videos are refused (503) while the data directory's disk has less free space than this. */
  minFreeDiskBytes: number;
  /** Reads text in frames (OCR) for the text categories. */
  textReader?: ImageTextReader | null;
  /**
   * A store shared by every instance (PostgreSQL, S3): an accepted video is kept there under `videos/<id>` until
   * analysed, and the worker fetches it into its own data directory. Null: the data directory is shared.
   */
  videoBlobs?: BlobStore | null;
}

export interface SubmitOptions {
  requestId: string | null;
}

/** A stored upload handed over by the HTTP layer: the file (absolute path) and its fingerprint. */
export interface UploadedFile {
  file: string;
  sha256: string;
  bytes: number;
}

interface VideoTag {
  id: string;
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Asynchronous video checks (interface §4.8, decisions §8): a video URL or upload is validated and probed, its
 * frames' quota reserved, and then analysed on the queue (frame pipeline → image model → policy). Progress is
 * pollable; the result is stored as a decision (contentType `video`) with the video's ID, and announced by
 * `moderation.completed` / `moderation.failed` to the request's `webhookUrl` and to subscribed webhooks.
 */
export class VideoService {
  /** Measured seconds per frame of recent videos, for estimates. */
  private secondsPerFrame = 0.15;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly db: Db,
    private readonly repository: VideoRepository,
    private readonly usageRepository: UsageRepository,
    private readonly policies: PolicyService,
    private readonly checks: CheckService,
    private readonly store: DecisionStore,
    private readonly outbox: EventOutbox,
    private readonly queue: Queue,
    private readonly usage: UsageService,
    private readonly provider: Provider,
    readonly evidence: EvidenceStore,
    private readonly options: VideoServiceOptions,
  ) {}

  /** Joins the transaction that stores a video's final decision: state, quota give-back and completion event. */
  readonly decisionSideWrite: DecisionSideWrite = async (trx, decisions) => {
    for (const d of decisions) {
      const tag = (d.request as { video?: VideoTag }).video;
      if (!tag) continue;
      const video = await this.repository.get(tag.id, undefined, trx);
      if (!video) continue;
      const at = new Date().toISOString();
      const frames = (d.results ?? []).length;
      if (!(await this.repository.finish(trx, video.id, 'completed', { framesProcessed: frames }, at))) {
        throw new Error('The video is not processing any more');
      }
      // The frames analysed are counted by the usage side write; the reservation is given back whole.
      await this.giveBack(trx, video);
      await this.outbox.record(trx, [
        buildEvent(
          d.accountId,
          'moderation.completed',
          { id: d.decisionId, ...videoResultView(d, video.framesTotal) },
          {
            targetUrl: video.webhookUrl,
          },
        ),
      ]);
    }
  };

  /** Checks the `check` scope: the HTTP layer calls it before streaming an upload to disk. */
  authorizeSubmit(principal: Principal): void {
    requireScope(principal, 'check');
  }

  /**
   * Checks an upload's form fields (options, webhook URL, policy) before its file is streamed, when they came
   * first: a mistake is answered without receiving up to 100 MB for nothing.
   */
  async checkUploadFields(principal: Principal, fields: Record<string, string>): Promise<void> {
    requireScope(principal, 'check');
    requireField(fields.policyId, 'policyId');
    parseVideoOptions(fields, { fromForm: true });
    validateDoNotStore(fields.doNotStore, 'doNotStore', { fromForm: true });
    await this.webhookUrl(fields.webhookUrl);
    await this.policies.resolve(principal, fields.policyId);
    this.usage.assertTrialActive(principal);
    await this.assertRoom(principal);
  }

  /**
   * Refuses a new video while the account has `maxPendingPerAccount` videos waiting or in analysis (each holds its
   * file, up to 100 MB, and a place in the queue), or while the data directory's disk is nearly full. Checked before
   * an upload is received or a URL fetched, and again before the video is accepted.
   */
  private async assertRoom(principal: Principal): Promise<void> {
    const max = this.options.maxPendingPerAccount;
    const processing = await this.repository.countProcessing(principal.accountId);
    if (processing >= max) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `The account has ${processing} videos waiting or in analysis; at most ${max} at once`,
        { reason: 'videos_in_progress', processing, maxProcessing: max },
        { 'retry-after': '10' },
      );
    }
    const disk = await fs.promises.statfs(this.options.dataDir).catch(() => null);
    if (disk !== null && disk.bavail * disk.bsize < this.options.minFreeDiskBytes) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The server is low on disk space for videos; retry later', {
        reason: 'disk_space',
      });
    }
  }

  /** `POST /v1/video/check`. */
  async submitUrl(principal: Principal, body: Record<string, unknown>, options: SubmitOptions) {
    requireScope(principal, 'check');
    requireField(body.videoUrl, 'videoUrl');
    requireField(body.policyId, 'policyId');
    const url = parseVideoUrl(body.videoUrl, 'videoUrl', { allowHttp: this.options.fetch.allowHttp });
    const strategy = body.extractionStrategy;
    if (
      strategy !== undefined &&
      strategy !== null &&
      (typeof strategy !== 'object' || Array.isArray(strategy))
    ) {
      throw new AppError('INVALID_PARAMETER', 'extractionStrategy must be an object', {
        field: 'extractionStrategy',
      });
    }
    const videoOptions = parseVideoOptions(
      { ...((strategy ?? {}) as object), maxDurationSeconds: body.maxDurationSeconds },
      { prefix: 'extractionStrategy.' },
    );
    const doNotStore = validateDoNotStore(body.doNotStore, 'doNotStore');
    const webhookUrl = await this.webhookUrl(body.webhookUrl);
    const policy = await this.policies.resolve(principal, body.policyId);
    // an ended trial is refused before the video is fetched (the quota is checked once its length is known)
    this.usage.assertTrialActive(principal);
    await this.assertRoom(principal);
    const id = newId('dec');
    const file = path.join(this.options.dataDir, UPLOADS, `${id}.video`);
    try {
      await downloadVideo(url, file, 'videoUrl', this.options.fetch);
      return await this.accept(principal, {
        id,
        file,
        // doNotStore: the URL is not kept even while the video is analysed (its bytes are already here)
        content: doNotStore ? '' : url,
        policyId: policy.policyId,
        webhookUrl,
        videoOptions,
        requestId: options.requestId,
        field: 'videoUrl',
        request: {
          path: '/v1/video/check',
          body: {
            videoUrl: doNotStore ? '' : url,
            policyId: policy.policyId,
            extractionStrategy: {
              frameInterval: videoOptions.frameInterval,
              maxFrames: videoOptions.maxFrames,
            },
            maxDurationSeconds: videoOptions.maxDurationSeconds,
            ...(webhookUrl && { webhookUrl }),
          },
          ...(doNotStore && { doNotStore: true }),
        },
      });
    } catch (error) {
      await fs.promises.rm(file, { force: true });
      throw error;
    }
  }

  /** `POST /v1/video/upload`: the file is already on disk (streamed there by the HTTP layer). */
  async submitUpload(
    principal: Principal,
    upload: UploadedFile,
    fields: Record<string, string>,
    options: SubmitOptions,
  ) {
    try {
      requireScope(principal, 'check');
      requireField(fields.policyId, 'policyId');
      const videoOptions = parseVideoOptions(fields, { fromForm: true });
      const doNotStore = validateDoNotStore(fields.doNotStore, 'doNotStore', { fromForm: true });
      const webhookUrl = await this.webhookUrl(fields.webhookUrl);
      const policy = await this.policies.resolve(principal, fields.policyId);
      if (upload.bytes === 0)
        throw new AppError('INVALID_CONTENT', 'The video file is empty', { field: 'video' });
      const id = newId('dec');
      const file = path.join(this.options.dataDir, UPLOADS, `${id}.video`);
      await fs.promises.rename(upload.file, file);
      upload.file = file;
      const content = doNotStore ? '' : `upload:sha256:${upload.sha256}`;
      return await this.accept(principal, {
        id,
        file,
        content,
        policyId: policy.policyId,
        webhookUrl,
        videoOptions,
        requestId: options.requestId,
        field: 'video',
        request: {
          path: '/v1/video/upload',
          body: {
            video: content,
            policyId: policy.policyId,
            frameInterval: videoOptions.frameInterval,
            maxFrames: videoOptions.maxFrames,
            maxDurationSeconds: videoOptions.maxDurationSeconds,
            ...(webhookUrl && { webhookUrl }),
          },
          ...(doNotStore && { doNotStore: true }),
        },
      });
    } catch (error) {
      await fs.promises.rm(upload.file, { force: true });
      throw error;
    }
  }

  private async webhookUrl(value: unknown): Promise<string | null> {
    if (value === undefined || value === null || value === '') return null;
    const url = parseWebhookUrl(value, 'webhookUrl');
    await assertPublicWebhookUrl(url, this.options.allowPrivateUrls, 'webhookUrl');
    return url.toString();
  }

  /** Probes the local copy, reserves the frames' quota, stores the video and queues its analysis. */
  private async accept(
    principal: Principal,
    v: {
      id: string;
      file: string;
      content: string;
      policyId: string;
      webhookUrl: string | null;
      videoOptions: VideoOptions;
      requestId: string | null;
      request: Record<string, unknown>;
      /** the request field that carried the video, named in errors */
      field: 'videoUrl' | 'video';
    },
  ) {
    const info = await probe(v.file, v.field);
    checkDecodeCost(info, v.field);
    await this.assertRoom(principal);
    const { videoOptions } = v;
    if (info.durationSeconds > videoOptions.maxDurationSeconds) {
      throw new AppError(
        'CONTENT_TOO_LARGE',
        `The video is ${round(info.durationSeconds, 1)} s long; maxDurationSeconds is ${videoOptions.maxDurationSeconds}`,
        {
          reason: 'duration',
          field: 'maxDurationSeconds',
          durationSeconds: round(info.durationSeconds),
          maxDurationSeconds: videoOptions.maxDurationSeconds,
        },
      );
    }
    const frames = plannedFrames(info.durationSeconds, videoOptions);
    const reservation = await this.usage.reserve(principal, units({ videoFrames: frames }));
    const now = new Date();
    const estimatedSeconds = this.estimate(frames);
    const blobs = this.options.videoBlobs ?? null;
    try {
      // Scaled out, the bytes are durable in the shared store before the row exists (and so before any job).
      if (blobs) await blobs.putFile(videoKey(v.id), v.file);
      await this.repository.insert({
        id: v.id,
        accountId: principal.accountId,
        keyId: principal.keyId,
        status: 'processing',
        policyId: v.policyId,
        content: v.content,
        file: path.relative(this.options.dataDir, v.file),
        webhookUrl: v.webhookUrl,
        frameInterval: samplingInterval(info.durationSeconds, videoOptions),
        maxFrames: videoOptions.maxFrames,
        maxDuration: videoOptions.maxDurationSeconds,
        duration: info.durationSeconds,
        framesTotal: frames,
        framesProcessed: 0,
        reservedFrames: principal.account.monthlyQuota === null ? 0 : frames,
        reservedMonth: monthOf(now),
        estimatedSeconds,
        request: v.request,
        requestId: v.requestId,
        error: null,
        startedAt: null,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        completedAt: null,
      });
    } catch (error) {
      await reservation.release();
      if (blobs) await blobs.delete(videoKey(v.id)).catch(() => {});
      throw error;
    }
    // a worker (here or elsewhere) fetches its own copy from the store
    if (blobs) await fs.promises.rm(v.file, { force: true });
    // The video is stored: from here on it is accepted. Should the enqueue fail (or the process die before it),
    // the maintenance task enqueues the video again, so its file must stay.
    await this.enqueue(v.id).catch(() => {});
    return {
      decisionId: v.id,
      status: 'processing' as const,
      estimatedTime: estimatedSeconds,
      estimatedFrames: frames,
      estimatedCost: 0,
      durationSeconds: round(info.durationSeconds),
    };
  }

  private estimate(frames: number): number {
    return Math.max(1, Math.ceil(1 + frames * this.secondsPerFrame));
  }

  async enqueue(id: string): Promise<void> {
    await this.queue.enqueue([
      { name: VIDEO_TASK, data: { videoId: id }, id: `video.${id}`, maxAttempts: 3 },
    ]);
  }

  /** A video decision of the caller's account; polling is open to the key scope that submits videos too. */
  private async find(principal: Principal, id: string): Promise<VideoRecord> {
    requireAnyScope(principal, 'decisions:read', 'check');
    const video = await this.repository.get(id, principal.accountId);
    if (!video)
      throw new AppError('DECISION_NOT_FOUND', `Video decision ${id} does not exist`, { decisionId: id });
    return video;
  }

  /** `GET /v1/video/status/{id}`. */
  async status(principal: Principal, id: string) {
    return videoStatusView(await this.find(principal, id), this.secondsPerFrame);
  }

  /** `GET /v1/video/result/{id}`: the final result, or the status while processing (202) or when failed. */
  async result(
    principal: Principal,
    id: string,
  ): Promise<{ status: 200 | 202; body: Record<string, unknown> }> {
    const video = await this.find(principal, id);
    if (video.status === 'processing')
      return { status: 202, body: videoStatusView(video, this.secondsPerFrame) };
    if (video.status === 'failed') return { status: 200, body: videoStatusView(video, this.secondsPerFrame) };
    const decision = await this.store.repository.get(principal.accountId, id);
    if (!decision) return { status: 202, body: videoStatusView(video, this.secondsPerFrame) };
    // the status fields of interface §2.8 too (progress at 100 %, completion time)
    const { progress, estimatedCompletion } = videoStatusView(video, this.secondsPerFrame);
    return {
      status: 200,
      body: { ...videoResultView(decision, video.framesTotal), progress, estimatedCompletion },
    };
  }

  /** The queue task. Restarts from the first frame when re-run after a crash; a finished video is left alone. */
  async process(id: string, signal?: AbortSignal): Promise<void> {
    const video = await this.repository.get(id);
    if (video?.status !== 'processing') return;
    const principal = workerPrincipal(video.keyId, video.accountId);
    const policy = await this.policies.resolve(principal, video.policyId);
    const file = path.join(this.options.dataDir, video.file);
    await this.acquire(signal);
    try {
      if (!(await this.localCopy(id, file))) {
        throw new AppError('INVALID_CONTENT', 'The stored copy of the video is gone', {
          reason: 'missing_file',
        });
      }
      await this.analyse(video, principal, policy, file, signal);
    } finally {
      this.running--;
      // Everyone waiting checks again (an aborted waiter must not swallow the wake-up).
      for (const wake of this.waiting.splice(0)) wake();
    }
  }

  /** The video's file in this instance's data directory, fetched from the shared store when not there yet. */
  private async localCopy(id: string, file: string): Promise<boolean> {
    if (fs.existsSync(file)) return true;
    const blobs = this.options.videoBlobs;
    return blobs ? blobs.getToFile(videoKey(id), file) : false;
  }

  /** Removes a video's bytes once it has ended: the local copy, and the shared store's (the sweep retries). */
  private async removeCopies(id: string, file: string): Promise<void> {
    await fs.promises.rm(path.join(this.options.dataDir, file), { force: true });
    await this.options.videoBlobs?.delete(videoKey(id)).catch(() => {});
  }

  /** A slot among `maxConcurrent` analyses; waits (abortably) when all are taken. */
  private async acquire(signal?: AbortSignal): Promise<void> {
    while (this.running >= (this.options.maxConcurrent ?? 2)) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    signal?.throwIfAborted();
    this.running++;
  }

  private async analyse(
    video: VideoRecord,
    principal: Principal,
    policy: Awaited<ReturnType<PolicyService['resolve']>>,
    file: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const { id } = video;
    // doNotStore: no evidence either (the JPEGs of triggered frames are the video's content)
    const doNotStore = video.request.doNotStore === true;
    const startedAt = new Date();
    await this.repository.started(id, startedAt.toISOString());
    let lastWrite = 0;
    let writing: Promise<void> = Promise.resolve();
    const analysis = await analyzeVideoFile(file, this.provider, policy, {
      intervalSeconds: video.frameInterval,
      maxFrames: video.framesTotal,
      maxDurationSeconds: video.maxDuration,
      timeoutMs: 120_000 + video.framesTotal * 5_000,
      maxInFlight: this.options.maxInFlight,
      ...(signal && { signal }),
      ...(!doNotStore && { evidence: (frame) => this.evidence.keep(id, frame.index, frame.jpeg) }),
      banks: this.checks.bankScreen(principal, policy),
      textReader: this.options.textReader ?? null,
      onProgress: (n) => {
        const now = Date.now();
        if (now - lastWrite < PROGRESS_EVERY_MS && n < video.framesTotal) return;
        lastWrite = now;
        writing = writing.then(() =>
          this.repository.progress(id, n, new Date(now).toISOString()).catch(() => {}),
        );
      },
    });
    await writing;
    const elapsed = (Date.now() - startedAt.getTime()) / 1000;
    this.secondsPerFrame = 0.7 * this.secondsPerFrame + 0.3 * (elapsed / analysis.frames.length);
    const record = this.checks.record(principal, policy, analysis.outcome, {
      content: video.content,
      contentType: 'video',
      rawScores: analysis.scores,
      evaluated: analysis.evaluated,
      provider: analysis.provider,
      modelVersion: analysis.modelVersion,
      cost: analysis.cost,
      language: null,
      metadata: null,
      requestId: video.requestId,
      replayOf: null,
      request: { ...video.request, video: { id } satisfies VideoTag },
      latency: round(Date.now() - Date.parse(video.createdAt)),
      results: analysis.frames,
      ...(analysis.bankMatch && { bankMatch: analysis.bankMatch }),
    });
    record.decisionId = id;
    if (doNotStore) record.doNotStore = true;
    await this.store.save([record]);
    await this.removeCopies(id, video.file);
  }

  /** The video failed for good: `moderation.failed`, the reservation given back, the local copy removed. */
  async fail(id: string, error: unknown): Promise<void> {
    const video = await this.repository.get(id);
    if (video?.status !== 'processing') return;
    const failure = isAppError(error)
      ? { code: error.code, message: error.message }
      : { code: 'INTERNAL_ERROR', message: 'The video could not be processed' };
    await this.db.transaction().execute(async (trx) => {
      const at = new Date().toISOString();
      if (!(await this.repository.finish(trx, id, 'failed', { error: failure }, at))) return;
      await this.giveBack(trx, video);
      const data = { id, decisionId: id, status: 'failed', error: failure };
      await this.outbox.record(trx, [
        buildEvent(video.accountId, 'moderation.failed', data, { targetUrl: video.webhookUrl }),
      ]);
    });
    await this.removeCopies(id, video.file);
  }

  private async giveBack(trx: Db, video: VideoRecord): Promise<void> {
    if (video.reservedFrames <= 0) return;
    await this.usageRepository.add(
      trx,
      video.accountId,
      video.reservedMonth,
      units({ videoFrames: -video.reservedFrames }),
    );
  }

  /**
   * Periodic upkeep: re-enqueues videos whose job was lost, removes evidence past its lifetime and local copies of
   * videos that are no longer processing (or uploads abandoned mid-stream).
   */
  async maintain(options: { stalledAfterMs: number }): Promise<void> {
    const ids = await this.repository.processingIds(
      new Date(Date.now() - options.stalledAfterMs).toISOString(),
    );
    for (const id of ids) await this.enqueue(id);
    await this.evidence.sweep();
    const dir = path.join(this.options.dataDir, UPLOADS);
    const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
    const videos = names.filter((n) => n.endsWith('.video')).map((n) => path.join(UPLOADS, n));
    for (const file of await this.repository.finishedFiles(videos)) {
      const stat = await fs.promises.stat(path.join(this.options.dataDir, file)).catch(() => null);
      // A file without a row may be one whose row is being inserted right now: leave recent ones.
      if (stat && Date.now() - stat.mtimeMs > 10 * 60_000) {
        await fs.promises.rm(path.join(this.options.dataDir, file), { force: true });
      }
    }
    await this.sweepVideoBlobs();
    for (const name of names.filter((n) => n.endsWith('.part'))) {
      const full = path.join(dir, name);
      const stat = await fs.promises.stat(full).catch(() => null);
      if (stat && Date.now() - stat.mtimeMs > 3_600_000) await fs.promises.rm(full, { force: true });
    }
  }

  /** Shared-store copies of videos no longer processing (the worker died between the result and the delete). */
  private async sweepVideoBlobs(): Promise<void> {
    const blobs = this.options.videoBlobs;
    if (!blobs) return;
    // as with local files: a blob without a row may be one whose row is being inserted right now
    const keys = await blobs.list('videos', new Date(Date.now() - 10 * 60_000));
    const byFile = new Map(keys.map((key) => [path.join(UPLOADS, `${path.basename(key)}.video`), key]));
    for (const file of await this.repository.finishedFiles([...byFile.keys()])) {
      await blobs.delete(byFile.get(file)!);
    }
  }

  /** Where the HTTP layer streams an upload before it is accepted. */
  uploadPath(): string {
    return path.join(this.options.dataDir, UPLOADS, `${newId('req')}.part`);
  }
}

async function probe(file: string, field: string): Promise<VideoInfo> {
  try {
    return await probeVideo(file);
  } catch (error) {
    if (error instanceof NotAVideoError) {
      throw new AppError('INVALID_CONTENT', `The content is not a decodable video: ${error.message}`, {
        field,
        reason: error.reason,
      });
    }
    throw error;
  }
}
