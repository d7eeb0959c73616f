import type { Redis } from 'ioredis';
import { AuditLog } from './audit/audit-log.ts';
import { AuditRepository } from './audit/repository.ts';
import { type BacktestService, createBacktesting, type ShadowService } from './backtest/index.ts';
import { BankMatcher } from './banks/matcher.ts';
import { BankService } from './banks/service.ts';
import { createEventsContext, createQueue, type EventsContext } from './compose-events.ts';
import { createVideoEvaluator, createVideoService } from './compose-videos.ts';
import { type Config, extraCa, type Secrets } from './config.ts';
import { AccountService } from './domain/accounts.ts';
import { CheckService } from './domain/checks.ts';
import { OpenAIModerationService } from './domain/compat/openai-moderations.ts';
import { PerspectiveService } from './domain/compat/perspective.ts';
import { ConsoleSessionService } from './domain/console-sessions.ts';
import { DecisionService, DecisionStore } from './domain/decisions.ts';
import { EvaluatorRegistry, TextEvaluator } from './domain/evaluators.ts';
import { ImageEvaluator } from './domain/image-evaluator.ts';
import { KeyCache } from './domain/key-cache.ts';
import { KeyUsageService } from './domain/key-usage.ts';
import { KeyService } from './domain/keys.ts';
import { MultimodalService } from './domain/multimodal.ts';
import { PolicyLifecycle } from './domain/policies/lifecycle.ts';
import { PolicyService } from './domain/policies/service.ts';
import { StatsService } from './domain/stats.ts';
import { UsageService } from './domain/usage.ts';
import type { VideoService } from './domain/videos.ts';
import type { Queue } from './jobs/queue.ts';
import { memoryRateLimiter, type RateLimiter, redisRateLimiter } from './limits/rate-limiter.ts';
import { ListMatcher } from './lists/matcher.ts';
import { ListService } from './lists/service.ts';
import { type ImageFetchOptions, MAX_IMAGE_PIXELS } from './media/image.ts';
import { instrumentProvider } from './metrics/instrument.ts';
import { Metrics } from './metrics/metrics.ts';
import { OcrEngine } from './ocr/engine.ts';
import { createExternalProvider } from './providers/external/index.ts';
import { startImageModel } from './providers/local-image/configured.ts';
import type { ImageModelPool } from './providers/local-image/pool.ts';
import { LocalImageProvider } from './providers/local-image/provider.ts';
import { LocalTextProvider } from './providers/local-text.ts';
import type { Provider } from './providers/provider.ts';
import { ProviderRegistry } from './providers/registry.ts';
import { QualityRepository } from './quality/repository.ts';
import { QualityService } from './quality/service.ts';
import { RetentionPurger } from './retention/purger.ts';
import { createReview, type ReviewModule } from './review/index.ts';
import { SearchIndex } from './search/search-index.ts';
import { type DatabaseHandle, migrateToLatest, openDatabase, pingDatabase } from './storage/database.ts';
import { AccountRepository } from './storage/repositories/accounts.ts';
import { ApiKeyRepository } from './storage/repositories/api-keys.ts';
import { BankRepository } from './storage/repositories/banks.ts';
import { ConsoleSessionRepository } from './storage/repositories/console-sessions.ts';
import { DecisionStatsRepository } from './storage/repositories/decision-stats.ts';
import { IdempotencyRepository } from './storage/repositories/idempotency.ts';
import { KeyUsageRepository } from './storage/repositories/key-usage.ts';
import { ListRepository } from './storage/repositories/lists.ts';
import { PolicyRepository } from './storage/repositories/policies.ts';
import { UsageRepository } from './storage/repositories/usage.ts';

/** Replacements for tests only; production builds everything from config. */
export interface ContextOverrides {
  textProvider?: Provider;
  /** Replaces the bundled image model (no worker pool is started). */
  imageProvider?: Provider;
  /** Image URL fetching: e.g. a DNS resolver or CA for tests. */
  imageFetch?: Partial<ImageFetchOptions>;
  /** A rate limiter built by the test (e.g. Redis with a unique key prefix). */
  rateLimiter?: RateLimiter;
  /** A queue built by the test (e.g. Redis with a unique key prefix). */
  queue?: Queue;
}

/** Every long-lived dependency, built once. Routes and tasks receive it and never construct dependencies. */
export interface AppContext extends EventsContext {
  config: Config;
  secrets: Secrets;
  database: DatabaseHandle;
  providers: ProviderRegistry;
  evaluators: EvaluatorRegistry;
  accounts: AccountService;
  keys: KeyService;
  /** Web console sign-in sessions (an admin key held server-side behind a cookie). */
  consoleSessions: ConsoleSessionService;
  policies: PolicyService;
  /** Policy versions, diff, rollback and deletion (issue 18). */
  policyLifecycle: PolicyLifecycle;
  /** Candidate policies replayed over stored decisions (issue 18). */
  backtests: BacktestService;
  /** Shadow policies beside live ones (issue 18). */
  shadows: ShadowService;
  decisions: DecisionService;
  /** Time-bucketed decision statistics (the console's overview). */
  stats: StatsService;
  decisionStore: DecisionStore;
  checks: CheckService;
  usage: UsageService;
  /** Decisions per API key in a month (GET /v1/usage/keys). */
  keyUsage: KeyUsageService;
  rateLimiter: RateLimiter;
  multimodal: MultimodalService;
  /** Asynchronous video checks, their progress, results and evidence. */
  videos: VideoService;
  /** The bundled image model's worker pool; null when a test replaced the image provider. */
  imageModel: ImageModelPool | null;
  idempotency: IdempotencyRepository;
  /** Hash banks (issue 20): CRUD and import; matching runs inside checks through the matcher. */
  banks: BankService;
  /** The append-only log of human and administrative actions (GET /v1/audit). */
  audit: AuditLog;
  /** Match lists (issue 18): CRUD and import; matching runs inside text checks through the matcher. */
  lists: ListService;
  /** Prometheus metrics of this instance (GET /metrics). */
  metrics: Metrics;
  /** Content redaction and decision deletion after their retention periods (run by the worker's sweep). */
  retention: RetentionPurger;
  /** Human review queues, appeals and statements of reasons (issue 18). */
  review: ReviewModule;
  /** Reviewers' labels against the automated decisions (GET /v1/quality). */
  quality: QualityService;
  /** Drop-in endpoints of other moderation APIs (issue 19). */
  compat: { openai: OpenAIModerationService; perspective: PerspectiveService };
  /** Readiness of each part, for /readyz. */
  readiness(): Promise<Record<string, boolean>>;
  close(): Promise<void>;
}

/** Parts built before the context by the process that starts the service (see `verdict serve`). */
export interface StartedParts {
  /** The image model's pool from `startImageModel`, already loading while the rest of the service starts. */
  imageModel?: ImageModelPool;
}

export async function createContext(
  config: Config,
  secrets: Secrets,
  overrides: ContextOverrides = {},
  started: StartedParts = {},
): Promise<AppContext> {
  // First: the image model loads in worker threads (in the background with `imagePreload`, reported by /readyz;
  // without it, on first use), on other cores while this thread migrates and warms up the text model.
  const imageModel = overrides.imageProvider ? null : (started.imageModel ?? (await startImageModel(config)));
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    if (!started.imageModel) await imageModel?.close();
    throw error;
  }
  const { db } = database;
  const accountRepo = new AccountRepository(db);
  const textProvider = overrides.textProvider ?? new LocalTextProvider();
  if (config.textWarmUp && textProvider instanceof LocalTextProvider) textProvider.warmUp();
  const imageProvider = overrides.imageProvider ?? new LocalImageProvider(imageModel!);
  // The operator's external providers (VERDICT_PROVIDERS_FILE); their keys come from Secrets, never from config.
  const external = (config.providers ?? []).map((provider) =>
    createExternalProvider(provider, secrets.providerKeys?.[provider.name] ?? null, {
      ...(config.caFile && { ca: extraCa(config) }),
    }),
  );
  // built before the providers, whose every call it times; its gauges read the rest when scraped
  const metrics: Metrics = new Metrics({
    queueDepth: () => eventsContext.queue.pendingCount(),
    oldestJobAgeMs: () => eventsContext.queue.oldestDueAgeMs(),
    sqliteFile: config.database.kind === 'sqlite' ? config.database.file : null,
    providers: () =>
      providers
        .external()
        .map((p) => (p as { health?: () => { name: string; state: string } }).health?.())
        .filter((h) => h !== undefined),
  });
  const timed = <P extends Provider>(p: P): P => instrumentProvider(p, metrics.providerDuration);
  const timedText = timed(textProvider);
  const timedImage = timed(imageProvider);
  const providers: ProviderRegistry = new ProviderRegistry([timedText, timedImage], external.map(timed));
  const evaluators = new EvaluatorRegistry();
  evaluators.register(new TextEvaluator(providers));
  const imageFetch = {
    allowPrivate: config.allowPrivateUrls,
    allowHttp: config.allowHttpMedia ?? false,
    ...(config.caFile && { ca: extraCa(config) }),
    ...overrides.imageFetch,
  };
  const ocr = config.ocr?.enabled
    ? new OcrEngine({
        timeoutMs: config.ocr.timeoutMs,
        maxPixels: MAX_IMAGE_PIXELS,
        ...(config.ocr.languages && { languages: config.ocr.languages }),
        ...(config.ocr.maxWorkers && { maxWorkers: config.ocr.maxWorkers }),
        ...(config.ocr.tessdataDirs && { tessdataDirs: config.ocr.tessdataDirs }),
      })
    : null;
  const textReader = ocr && { engine: ocr, text: timedText };
  evaluators.register(new ImageEvaluator(timedImage, imageFetch, textReader, providers));
  const audit = new AuditLog(new AuditRepository(db));
  const bankRepo = new BankRepository(db);
  const banks = new BankService(bankRepo, imageFetch, audit);
  const bankMatcher = new BankMatcher(bankRepo, MAX_IMAGE_PIXELS);
  // Video URLs go through the same fetcher settings (and test seams) as image URLs.
  evaluators.register(createVideoEvaluator(config, timedImage, overrides.imageFetch, textReader));
  const decisionStore = new DecisionStore(db, database.engine);
  const policyRepository = new PolicyRepository(db, database.engine);
  const listRepo = new ListRepository(db);
  const listMatcher = new ListMatcher(listRepo);
  const lists = new ListService(
    listRepo,
    {
      policiesNaming: async (accountId, name) =>
        (await policyRepository.listForAccount(accountId))
          .filter((p) => p.lists?.some((rule) => rule.list === name))
          .map((p) => p.policyId),
      changed: (accountId) => listMatcher.changed(accountId),
    },
    audit,
  );
  const policies = new PolicyService(
    policyRepository,
    audit,
    providers,
    (accountId, names) => banks.existingNames(accountId, names),
    (accountId, names) => lists.existing(accountId, names),
  );
  const decisions = new DecisionService(decisionStore, config.publicUrl);
  const usage = new UsageService(new UsageRepository(db));
  // ioredis is loaded only when Redis is configured
  const limitsRedis =
    !overrides.rateLimiter && config.redisUrl && config.rateLimit.enabled
      ? new (await import('ioredis')).Redis(config.redisUrl, {
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
          lazyConnect: false,
          // the commands of the requests handled in one event-loop turn go out in one write (a system call and a
          // round trip for many requests instead of one each: the socket writes were ~30 % of a check's CPU)
          enableAutoPipelining: true,
        })
      : null;
  limitsRedis?.on('error', () => {}); // failures surface per request, as the configured open/closed behaviour
  // Start with a connection, so the first requests are limited too; if Redis is down, the failure mode applies.
  if (limitsRedis) await waitForRedis(limitsRedis, 5000);
  const rateLimiter =
    overrides.rateLimiter ?? (limitsRedis ? redisRateLimiter(limitsRedis) : memoryRateLimiter());
  decisionStore.addSideWrite(usage.sideWrite);
  // the full-text index of content, written in each decision's own transaction (src/search)
  decisionStore.addSideWrite(new SearchIndex(database.engine).sideWrite);
  const checks = new CheckService(
    policies,
    evaluators,
    decisionStore,
    decisions,
    usage,
    bankMatcher,
    listMatcher,
  );
  const eventsContext = createEventsContext(config, database, {
    accounts: accountRepo,
    policies,
    checks,
    decisionStore,
    usage,
    audit,
    queue: overrides.queue ?? (await createQueue(config, database)),
  });
  const policyLifecycle = new PolicyLifecycle(policies, policyRepository, audit);
  const { backtests, shadows } = createBacktesting(
    db,
    { policies, lifecycle: policyLifecycle, providers, queue: eventsContext.queue, audit },
    config.cacheMs ?? 500,
  );
  decisionStore.addSideWrite(shadows.sideWrite);
  const apiKeyRepo = new ApiKeyRepository(db);
  const review = createReview(database, {
    events: eventsContext.events,
    decisions,
    keyName: async (keyId) => (await apiKeyRepo.get(keyId))?.name ?? null,
    audit,
  });
  // queue entries are written in the decision's own transaction
  decisionStore.addSideWrite(review.queue.sideWrite);
  const videos = createVideoService(config, secrets, database, {
    policies,
    checks,
    decisionStore,
    events: eventsContext.events,
    queue: eventsContext.queue,
    usage,
    imageProvider: timedImage,
    textReader,
    ...(overrides.imageFetch && { fetch: overrides.imageFetch }),
  });
  decisionStore.onCommitted((stored) => {
    for (const d of stored) metrics.decisions.inc({ action: d.action, content_type: d.contentType });
  });
  eventsContext.webhookDeliverer.onAttempt = (success, durationMs) => {
    metrics.webhookDeliveries.inc({ outcome: success ? 'succeeded' : 'failed' });
    metrics.webhookLatency.observe(durationMs / 1000);
  };
  const keyCache = new KeyCache(config.cacheMs ?? 500, database.externalVersion ?? null);
  const keys = new KeyService(new ApiKeyRepository(db), accountRepo, audit, keyCache);
  let closed = false;
  return {
    config,
    secrets,
    database,
    providers,
    evaluators,
    accounts: new AccountService(accountRepo, audit, keyCache),
    audit,
    keys,
    consoleSessions: new ConsoleSessionService(new ConsoleSessionRepository(db), keys),
    policies,
    policyLifecycle,
    backtests,
    shadows,
    decisions,
    stats: new StatsService(new DecisionStatsRepository(db, database.engine)),
    decisionStore,
    checks,
    usage,
    keyUsage: new KeyUsageService(new KeyUsageRepository(db)),
    rateLimiter,
    multimodal: new MultimodalService(policies, evaluators, decisionStore, checks, usage),
    imageModel,
    videos,
    ...eventsContext,
    idempotency: new IdempotencyRepository(db),
    banks,
    lists,
    metrics,
    retention: new RetentionPurger(db, {
      contentMs: config.contentRetentionMs ?? null,
      decisionMs: config.decisionRetentionMs ?? null,
    }),
    review,
    quality: new QualityService(new QualityRepository(db), policies),
    compat: {
      openai: new OpenAIModerationService(evaluators, usage, () => textProvider.modelVersion),
      perspective: new PerspectiveService(checks, evaluators, usage),
    },
    async readiness() {
      const storage = await pingDatabase(db).then(
        () => true,
        () => false,
      );
      const queue = await eventsContext.queue.ping();
      const images = !closed && (imageModel?.isReady() ?? true);
      return { storage, queue, models: providers.all().length > 0 && !closed, images };
    },
    async close() {
      if (closed) return;
      closed = true;
      await eventsContext.queue.close();
      limitsRedis?.disconnect();
      await providers.close();
      await ocr?.close();
      await database.close();
    },
  };
}

function waitForRedis(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
