import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LANGUAGES, type Language } from './domain/taxonomy.ts';
import {
  ClassifierManifestError,
  type ImageClassifierSpec,
  readClassifierManifests,
} from './image-classifiers/manifest.ts';
import {
  type ExternalProviderConfig,
  ProvidersFileError,
  readProvidersFile,
} from './providers/external/config-file.ts';

/** Typed, validated service configuration. Secrets are kept apart from the rest (see `Secrets`). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  redisUrl: string | null;
  allowPrivateUrls: boolean;
  webhookRetrySchedule: number[] | null;
  logLevel: string;
  shutdownTimeoutMs: number;
  /** Per-key rate limits: defaults for keys without their own, and what to do when Redis fails. */
  rateLimit: { enabled: boolean; perMinute: number; burstPerSecond: number; onRedisError: 'open' | 'closed' };
  /** VERDICT_CA_FILE: PEM file of extra CAs trusted for outbound HTTPS (webhooks, media URLs); read at start. */
  caFile: string | null;
  /** VERDICT_JOB_LEASE_MS: a job whose worker died is taken up again after this lease lapses. */
  jobLeaseMs: number;
  /** VERDICT_WORKER_CONCURRENCY: jobs (webhook deliveries, batches) one worker runs at once. */
  workerConcurrency: number;
  /** VERDICT_IMAGE_WORKERS: image model worker threads; default os.availableParallelism(). */
  imageWorkers?: number;
  /** VERDICT_ALLOW_HTTP_MEDIA: also fetch image/video URLs over plain http (development and tests only). */
  allowHttpMedia?: boolean;
  /**
   * VERDICT_IMAGE_PRELOAD (default true): load the image model at start, and report it in /readyz until loaded.
   * false loads it on the first image instead (quicker starts for tests and text-only deployments).
   */
  imagePreload?: boolean;
  /**
   * VERDICT_TEXT_WARMUP (default true): classify generated texts once at start (about half a second) so that the
   * first real texts do not pay for the JIT compiling the text model (cold, a 32 KB text took up to 180 ms).
   */
  textWarmUp?: boolean;
  /**
   * VERDICT_OCR (default true): read text in images (tesseract.js, offline) and judge it with the text model;
   * VERDICT_OCR_TIMEOUT_MS (default 3000) bounds one image's reading; VERDICT_OCR_LANGUAGES (comma-separated
   * codes, default all 17) the languages read; VERDICT_OCR_MAX_WORKERS (default 6) the live tesseract workers (one
   * per model, ~50–100 MB each); VERDICT_OCR_TESSDATA_DIR a directory of `<model>.traineddata` for models no npm
   * package carries (default: Debian's tesseract-ocr directories).
   */
  ocr?: {
    enabled: boolean;
    timeoutMs: number;
    languages?: Language[];
    maxWorkers?: number;
    tessdataDirs?: string[];
  };
  /** VERDICT_EVIDENCE_TTL (default 24h): how long evidence frame URLs of video results stay fetchable. */
  evidenceTtlMs?: number;
  /** VERDICT_MAX_PENDING_VIDEOS (default 20): videos an account may have waiting or in analysis at once. */
  maxPendingVideos?: number;
  /** VERDICT_MIN_FREE_DISK_MB (default 1024): below this much free space in the data directory, videos are refused. */
  minFreeDiskMb?: number;
  /**
   * VERDICT_CACHE_MS (default 500, 0 = off): how long an instance trusts what it read of API keys (with their
   * account's limits) and of webhook subscriptions without reading the database again. A change made through this
   * instance applies at once; one made through another instance (scaled out) applies here within this time.
   */
  cacheMs?: number;
  /**
   * VERDICT_REQUEST_LOG_SAMPLE (default 1): the share of successful requests that get a log line (one line per
   * request, when it completes); failed requests (4xx, 5xx) are always logged.
   */
  requestLogSample?: number;
  /** VERDICT_PROVIDERS_FILE: external AI providers configured by the operator (`local` is always there). */
  providers?: ExternalProviderConfig[];
  /**
   * VERDICT_IMAGE_CLASSIFIERS: a manifest file or a directory of manifests of the operator's ONNX image
   * classifiers (model SHA-256 verified at start); VERDICT_IMAGE_CLASSIFIER_TIMEOUT_MS (default 30000) bounds one
   * image's time in an image worker when classifiers are configured.
   */
  imageClassifiers?: { classifiers: ImageClassifierSpec[]; timeoutMs: number };
  /** VERDICT_CONTENT_RETENTION (e.g. 30d; default: kept): after this, a decision's content is redacted. */
  contentRetentionMs?: number | null;
  /** VERDICT_DECISION_RETENTION (e.g. 365d; default: kept): after this, decisions are deleted. */
  decisionRetentionMs?: number | null;
  /**
   * VERDICT_S3_URL (`http(s)://[key:secret@]host[:port]/bucket`) and VERDICT_S3_REGION (default us-east-1): evidence
   * frames and uploaded videos go to this S3-compatible bucket. The credentials are in `Secrets.s3`, not here.
   */
  s3?: { endpoint: string; bucket: string; region: string } | null;
}

export interface Secrets {
  bootstrapKey: string | null;
  /** VERDICT_METRICS_TOKEN: a bearer token that may read GET /metrics (besides admin keys). */
  metricsToken?: string | null;
  /** Provider API keys by provider name, read from the variables the providers file names (apiKeyEnv). */
  providerKeys?: Record<string, string>;
  /** The S3 store's access key: from VERDICT_S3_URL's user info, or VERDICT_S3_ACCESS_KEY_ID / _SECRET_ACCESS_KEY. */
  s3?: { accessKeyId: string; secretAccessKey: string } | null;
}

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`Invalid ${setting}: ${message}`);
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parseInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `expected ${min}–${max}, got ${value}`);
  return value;
}

function parseLanguages(env: Env, name: string): Language[] {
  const raw = str(env, name);
  if (raw === undefined) return [...LANGUAGES];
  const codes = raw
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '');
  const unknown = codes.filter((c) => !(LANGUAGES as readonly string[]).includes(c));
  if (codes.length === 0 || unknown.length > 0) {
    throw new ConfigError(name, `expected codes among ${LANGUAGES.join(', ')}, got "${raw}"`);
  }
  return [...new Set(codes)] as Language[];
}

function parseBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function parseChoice<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `expected ${choices.join(' or ')}, got "${raw}"`);
  }
  return raw as T;
}

function parseUrl(name: string, raw: string, protocols: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'not a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got ${url.protocol}`);
  }
  return raw;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `1s`, `250ms`, `5m`, `2h`, `1d` into milliseconds; null when malformed. */
export function parseDuration(raw: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(raw.trim());
  if (!match) return null;
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2]!]!);
}

function parseSchedule(env: Env, name: string): number[] | null {
  const raw = str(env, name);
  if (raw === undefined) return null;
  const delays = raw.split(',').map((part) => parseDuration(part));
  if (delays.length === 0 || delays.some((d) => d === null)) {
    throw new ConfigError(name, `expected comma-separated durations like "1s,2s,1m", got "${raw}"`);
  }
  return delays as number[];
}

function parseEvidenceTtl(env: Env): number {
  const raw = str(env, 'VERDICT_EVIDENCE_TTL');
  if (raw === undefined) return 24 * 3_600_000;
  const ms = parseDuration(raw);
  if (ms === null || ms < 1000 || ms > 30 * 86_400_000) {
    throw new ConfigError(
      'VERDICT_EVIDENCE_TTL',
      `expected a duration from 1s to 30d like "24h", got "${raw}"`,
    );
  }
  return ms;
}

/** PEM text of each CA file read, by path: the image, video and webhook fetchers share one read. */
const caTexts = new Map<string, string>();

/** The PEM certificates of a CA file, read once per file; ConfigError when it cannot be read or holds none. */
function readCaFile(file: string): string {
  let text = caTexts.get(file);
  if (text !== undefined) return text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      'VERDICT_CA_FILE',
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new ConfigError(
      'VERDICT_CA_FILE',
      `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
  caTexts.set(file, text);
  return text;
}

/** VERDICT_CA_FILE: a readable file of PEM certificates (a wrong path or format is refused at start). */
function parseCaFile(env: Env): string | null {
  const raw = str(env, 'VERDICT_CA_FILE');
  if (raw === undefined) return null;
  const file = path.resolve(raw);
  readCaFile(file);
  return file;
}

/** A retention period: a duration of at least one minute (`30d`, `12h`), or unset (kept for ever). */
function parseRetention(env: Env, name: string): number | null {
  const raw = str(env, name);
  if (raw === undefined) return null;
  const ms = parseDuration(raw);
  if (ms === null || ms < 60_000) {
    throw new ConfigError(name, `expected a duration of at least 1m like "30d", got "${raw}"`);
  }
  return ms;
}

function parseFraction(env: Env, name: string, fallback: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new ConfigError(name, `expected a number from 0 to 1, got "${raw}"`);
  }
  return value;
}

/** Extra CAs trusted for outbound HTTPS (VERDICT_CA_FILE), for every fetcher. */
export function extraCa(config: Pick<Config, 'caFile'>): string | undefined {
  return config.caFile ? readCaFile(config.caFile) : undefined;
}

/** Reads, validates and defaults every setting of decisions §0. Throws ConfigError with a clear message. */
export function loadConfig(env: Env = process.env): { config: Config; secrets: Secrets } {
  // not 0: the public URL (evidence links, cURL commands) must name the port the service listens on
  const port = parseInteger(env, 'PORT', 8080, 1, 65535);
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const dataDir = path.resolve(str(env, 'VERDICT_DATA_DIR') ?? './data');
  const databaseUrl = str(env, 'DATABASE_URL');
  const redisUrl = str(env, 'REDIS_URL');
  const publicUrlRaw = str(env, 'VERDICT_PUBLIC_URL');
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = (
    publicUrlRaw
      ? parseUrl('VERDICT_PUBLIC_URL', publicUrlRaw, ['http:', 'https:'])
      : `http://${publicHost.includes(':') ? `[${publicHost}]` : publicHost}:${port}`
  ).replace(/\/+$/, '');
  const bootstrapKey = str(env, 'VERDICT_BOOTSTRAP_KEY') ?? null;
  if (bootstrapKey !== null && !/^vk_[A-Za-z0-9_-]{16,128}$/.test(bootstrapKey)) {
    throw new ConfigError(
      'VERDICT_BOOTSTRAP_KEY',
      'expected "vk_" followed by 16–128 characters of [A-Za-z0-9_-]',
    );
  }
  const logLevel = str(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `expected fatal|error|warn|info|debug|trace|silent, got "${logLevel}"`,
    );
  }
  const config: Config = {
    port,
    host,
    dataDir,
    publicUrl,
    database: databaseUrl
      ? { kind: 'postgres', url: parseUrl('DATABASE_URL', databaseUrl, ['postgres:', 'postgresql:']) }
      : { kind: 'sqlite', file: path.join(dataDir, 'verdict.db') },
    redisUrl: redisUrl ? parseUrl('REDIS_URL', redisUrl, ['redis:', 'rediss:']) : null,
    allowPrivateUrls: parseBoolean(env, 'VERDICT_ALLOW_PRIVATE_URLS', false),
    webhookRetrySchedule: parseSchedule(env, 'VERDICT_WEBHOOK_RETRY_SCHEDULE'),
    logLevel,
    shutdownTimeoutMs: parseInteger(env, 'VERDICT_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    rateLimit: {
      enabled: parseBoolean(env, 'VERDICT_RATE_LIMITS', true),
      perMinute: parseInteger(env, 'VERDICT_RATE_LIMIT_PER_MINUTE', 6000, 1, 10_000_000),
      burstPerSecond: parseInteger(env, 'VERDICT_RATE_LIMIT_BURST_PER_SECOND', 200, 1, 1_000_000),
      onRedisError: parseChoice(env, 'VERDICT_RATE_LIMIT_ON_REDIS_ERROR', ['open', 'closed'], 'open'),
    },
    caFile: parseCaFile(env),
    jobLeaseMs: parseInteger(env, 'VERDICT_JOB_LEASE_MS', 30_000, 500, 3_600_000),
    workerConcurrency: parseInteger(env, 'VERDICT_WORKER_CONCURRENCY', 16, 1, 256),
    imageWorkers: parseInteger(env, 'VERDICT_IMAGE_WORKERS', os.availableParallelism(), 1, 256),
    allowHttpMedia: parseBoolean(env, 'VERDICT_ALLOW_HTTP_MEDIA', false),
    imagePreload: parseBoolean(env, 'VERDICT_IMAGE_PRELOAD', true),
    textWarmUp: parseBoolean(env, 'VERDICT_TEXT_WARMUP', true),
    ocr: {
      enabled: parseBoolean(env, 'VERDICT_OCR', true),
      timeoutMs: parseInteger(env, 'VERDICT_OCR_TIMEOUT_MS', 3000, 100, 60_000),
      languages: parseLanguages(env, 'VERDICT_OCR_LANGUAGES'),
      maxWorkers: parseInteger(env, 'VERDICT_OCR_MAX_WORKERS', 6, 1, 64),
      ...(str(env, 'VERDICT_OCR_TESSDATA_DIR') && { tessdataDirs: [str(env, 'VERDICT_OCR_TESSDATA_DIR')!] }),
    },
    evidenceTtlMs: parseEvidenceTtl(env),
    maxPendingVideos: parseInteger(env, 'VERDICT_MAX_PENDING_VIDEOS', 20, 1, 1_000_000),
    minFreeDiskMb: parseInteger(env, 'VERDICT_MIN_FREE_DISK_MB', 1024, 0, 1_000_000_000),
    cacheMs: parseInteger(env, 'VERDICT_CACHE_MS', 500, 0, 60_000),
    requestLogSample: parseFraction(env, 'VERDICT_REQUEST_LOG_SAMPLE', 1),
    contentRetentionMs: parseRetention(env, 'VERDICT_CONTENT_RETENTION'),
    decisionRetentionMs: parseRetention(env, 'VERDICT_DECISION_RETENTION'),
  };
  const metricsToken = str(env, 'VERDICT_METRICS_TOKEN') ?? null;
  if (metricsToken !== null && metricsToken.length < 16) {
    throw new ConfigError('VERDICT_METRICS_TOKEN', 'expected at least 16 characters');
  }
  config.imageClassifiers = parseImageClassifiers(env);
  const { providers, providerKeys } = parseProvidersFile(env);
  config.providers = providers;
  const s3 = parseS3(env);
  config.s3 = s3?.location ?? null;
  return { config, secrets: { bootstrapKey, metricsToken, providerKeys, s3: s3?.credentials ?? null } };
}

/**
 * VERDICT_S3_URL: the bucket as a path-style URL; its credentials in the URL's user info (percent-encoded) or in
 * VERDICT_S3_ACCESS_KEY_ID and VERDICT_S3_SECRET_ACCESS_KEY (which win). Errors never repeat the URL (it may hold
 * the secret).
 */
function parseS3(env: Env): {
  location: NonNullable<Config['s3']>;
  credentials: NonNullable<Secrets['s3']>;
} | null {
  const raw = str(env, 'VERDICT_S3_URL');
  if (raw === undefined) return null;
  const name = 'VERDICT_S3_URL';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(name, `expected an http or https URL, got ${url.protocol}`);
  if (url.search || url.hash) throw new ConfigError(name, 'expected no query or fragment');
  const bucket = url.pathname.replace(/^\/+|\/+$/g, '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(name, 'expected the bucket as the path, like http://host:9000/verdict');
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value);
    } catch {
      throw new ConfigError(name, 'the credentials in the URL are not validly percent-encoded');
    }
  };
  const accessKeyId =
    str(env, 'VERDICT_S3_ACCESS_KEY_ID') ?? (url.username ? decode(url.username) : undefined);
  const secretAccessKey =
    str(env, 'VERDICT_S3_SECRET_ACCESS_KEY') ?? (url.password ? decode(url.password) : undefined);
  if (!accessKeyId || !secretAccessKey) {
    throw new ConfigError(
      name,
      'no credentials: put them in the URL (http://key:secret@host/bucket) or set VERDICT_S3_ACCESS_KEY_ID and VERDICT_S3_SECRET_ACCESS_KEY',
    );
  }
  const region = str(env, 'VERDICT_S3_REGION') ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,64}$/.test(region))
    throw new ConfigError('VERDICT_S3_REGION', `expected a region name like us-east-1, got "${region}"`);
  return {
    location: { endpoint: `${url.protocol}//${url.host}`, bucket, region },
    credentials: { accessKeyId, secretAccessKey },
  };
}

/** VERDICT_IMAGE_CLASSIFIERS: every manifest checked and every model's digest verified, or the start stops. */
function parseImageClassifiers(env: Env): Config['imageClassifiers'] {
  const timeoutMs = parseInteger(env, 'VERDICT_IMAGE_CLASSIFIER_TIMEOUT_MS', 30_000, 100, 600_000);
  const raw = str(env, 'VERDICT_IMAGE_CLASSIFIERS');
  if (raw === undefined) return { classifiers: [], timeoutMs };
  try {
    return { classifiers: readClassifierManifests(path.resolve(raw)), timeoutMs };
  } catch (error) {
    if (error instanceof ClassifierManifestError)
      throw new ConfigError('VERDICT_IMAGE_CLASSIFIERS', error.message);
    throw error;
  }
}

/** VERDICT_PROVIDERS_FILE and the keys it names: a bad file or a missing key stops the start, naming the line. */
function parseProvidersFile(env: Env): {
  providers: ExternalProviderConfig[];
  providerKeys: Record<string, string>;
} {
  const raw = str(env, 'VERDICT_PROVIDERS_FILE');
  if (raw === undefined) return { providers: [], providerKeys: {} };
  let providers: ExternalProviderConfig[];
  try {
    providers = readProvidersFile(path.resolve(raw));
  } catch (error) {
    if (error instanceof ProvidersFileError) throw new ConfigError('VERDICT_PROVIDERS_FILE', error.message);
    throw error;
  }
  const providerKeys: Record<string, string> = {};
  for (const provider of providers) {
    if (provider.apiKeyEnv === null) continue;
    const key = str(env, provider.apiKeyEnv);
    // the variable's name only: its value is a secret
    if (key === undefined)
      throw new ConfigError(
        provider.apiKeyEnv,
        `provider "${provider.name}" reads its key from it, and it is not set`,
      );
    providerKeys[provider.name] = key;
  }
  return { providers, providerKeys };
}
