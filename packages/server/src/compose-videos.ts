import { createBlobStore } from './blobs/index.ts';
import { type Config, extraCa, type Secrets } from './config.ts';
import type { CheckService } from './domain/checks.ts';
import type { DecisionStore } from './domain/decisions.ts';
import type { EventOutbox } from './domain/events.ts';
import type { PolicyService } from './domain/policies/service.ts';
import type { UsageService } from './domain/usage.ts';
import { VideoEvaluator } from './domain/video-evaluator.ts';
import { EvidenceStore } from './domain/video-evidence.ts';
import { VideoService } from './domain/videos.ts';
import type { Queue } from './jobs/queue.ts';
import type { VideoFetchOptions } from './media/video/source.ts';
import type { ImageTextReader } from './ocr/judge.ts';
import type { Provider } from './providers/provider.ts';
import type { DatabaseHandle } from './storage/database.ts';
import { UsageRepository } from './storage/repositories/usage.ts';
import { VideoRepository } from './storage/repositories/videos.ts';

/** How video URLs are fetched: the operator's settings, plus test seams (resolver, address policy). */
export function videoFetchOptions(config: Config, extra: Partial<VideoFetchOptions> = {}): VideoFetchOptions {
  return {
    allowPrivate: config.allowPrivateUrls,
    allowHttp: config.allowHttpMedia ?? false,
    ...(config.caFile && { ca: extraCa(config) }),
    ...extra,
  };
}

/** Frames classified at once: two per image worker keeps every worker busy while ffmpeg extracts the next. */
export function framesInFlight(config: Config): number {
  return Math.max(2, (config.imageWorkers ?? 2) * 2);
}

export function createVideoEvaluator(
  config: Config,
  imageProvider: Provider,
  fetch: Partial<VideoFetchOptions> = {},
  textReader: ImageTextReader | null = null,
): VideoEvaluator {
  return new VideoEvaluator(imageProvider, videoFetchOptions(config, fetch), {
    textReader,
    dataDir: config.dataDir,
    maxInFlight: framesInFlight(config),
    // one ffmpeg per image worker: more would only compete for the same cores
    concurrency: Math.max(1, config.imageWorkers ?? 2),
  });
}

/** The video service; registers its side write (completion in the decision's transaction) with the store. */
export function createVideoService(
  config: Config,
  secrets: Secrets,
  database: DatabaseHandle,
  deps: {
    policies: PolicyService;
    checks: CheckService;
    decisionStore: DecisionStore;
    events: EventOutbox;
    queue: Queue;
    usage: UsageService;
    imageProvider: Provider;
    fetch?: Partial<VideoFetchOptions>;
    textReader?: ImageTextReader | null;
  },
): VideoService {
  const { db } = database;
  const repository = new VideoRepository(db);
  const blobs = createBlobStore(config, secrets, database);
  const evidence = new EvidenceStore(blobs, repository, {
    publicUrl: config.publicUrl,
    ttlMs: config.evidenceTtlMs ?? 24 * 3_600_000,
  });
  const videos = new VideoService(
    db,
    repository,
    new UsageRepository(db),
    deps.policies,
    deps.checks,
    deps.decisionStore,
    deps.events,
    deps.queue,
    deps.usage,
    deps.imageProvider,
    evidence,
    {
      dataDir: config.dataDir,
      allowPrivateUrls: config.allowPrivateUrls,
      fetch: videoFetchOptions(config, deps.fetch),
      maxInFlight: framesInFlight(config),
      // Each analysis holds an ffmpeg decoder; the image workers are the shared bottleneck anyway.
      maxConcurrent: Math.max(2, config.imageWorkers ?? 2),
      maxPendingPerAccount: config.maxPendingVideos ?? 20,
      minFreeDiskBytes: (config.minFreeDiskMb ?? 1024) * 1024 * 1024,
      textReader: deps.textReader ?? null,
      // A shared store carries accepted videos from the API instance to whichever worker analyses them; with files,
      // API and worker share the data directory and the upload stays where it is.
      videoBlobs: blobs.kind === 'file' ? null : blobs,
    },
  );
  deps.decisionStore.addSideWrite(videos.decisionSideWrite);
  return videos;
}
