import fs from 'node:fs';
import type { Node } from 'yaml';
import { type CategoryName, TEXT_CATEGORY_NAMES } from '../../domain/taxonomy.ts';
import { yaml } from '../../lazy-yaml.ts';

export const PROVIDER_KINDS = ['openai-moderation', 'openai-chat-guard', 'azure-content-safety'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
export const GUARD_FAMILIES = ['llama-guard', 'shieldgemma', 'gpt-oss-safeguard'] as const;
export type GuardFamily = (typeof GUARD_FAMILIES)[number];

/** One operator-configured external provider, validated (VERDICT_PROVIDERS_FILE). */
export interface ExternalProviderConfig {
  name: string;
  kind: ProviderKind;
  url: string;
  /** The `model` sent to OpenAI-shaped APIs (moderation, chat); null for Azure. */
  model: string | null;
  /** openai-chat-guard only: which prompt template and answer parser to use. */
  family: GuardFamily | null;
  /** The name of the environment variable holding the key; the key itself never appears in the file. */
  apiKeyEnv: string | null;
  /** The whole call, queueing for a slot and retries included. */
  timeoutMs: number;
  maxConcurrency: number;
  /** Retries after a 429, a 5xx or a connection failure, with exponential backoff, within `timeoutMs`. */
  retries: number;
  costPerCall: number;
  costPer1kChars: number;
  categories: CategoryName[];
  /** Loopback and private addresses (and plain http) are refused unless the operator allows them here. */
  allowPrivateNetwork: boolean;
  /** Consecutive failed calls that open the circuit, and how long it stays open before one trial call. */
  circuitBreaker: { failures: number; openMs: number };
  /** openai-chat-guard: ask for log probabilities (servers that refuse the parameter need false). */
  logprobs: boolean;
  /** openai-chat-guard: `max_tokens` of the answer; null = the family's default (reasoning models need room). */
  maxTokens: number | null;
}

/** Categories each kind can judge at all; `categories` in the file may narrow them. */
export const KIND_CATEGORIES: Record<ProviderKind | GuardFamily, readonly CategoryName[]> = {
  'openai-moderation': ['harassment', 'hate', 'violence', 'sexual', 'self_harm'],
  'azure-content-safety': ['hate', 'violence', 'sexual', 'self_harm'],
  'openai-chat-guard': TEXT_CATEGORY_NAMES,
  'llama-guard': ['hate', 'violence', 'sexual', 'self_harm'],
  shieldgemma: ['harassment', 'hate', 'violence', 'sexual'],
  'gpt-oss-safeguard': TEXT_CATEGORY_NAMES,
};

const KEYS = new Set([
  'kind',
  'url',
  'model',
  'family',
  'apiKeyEnv',
  'timeoutMs',
  'maxConcurrency',
  'retries',
  'costPerCall',
  'costPer1kChars',
  'categories',
  'allowPrivateNetwork',
  'circuitBreaker',
  'logprobs',
  'maxTokens',
]);
const NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const MAX_FILE_BYTES = 256 * 1024;
const MAX_PROVIDERS = 32;

/** A problem in the providers file, with the 1-based line it is on when known. */
export class ProvidersFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    problem: string,
  ) {
    super(line === null ? `${file}: ${problem}` : `${file} line ${line}: ${problem}`);
    this.name = 'ProvidersFileError';
  }
}

/** Reads and validates the providers file. Throws ProvidersFileError naming the line at fault. */
export function readProvidersFile(file: string): ExternalProviderConfig[] {
  let source: string;
  try {
    const stat = fs.statSync(file);
    if (stat.size > MAX_FILE_BYTES) throw new ProvidersFileError(file, null, 'larger than 256 KB');
    source = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ProvidersFileError) throw error;
    throw new ProvidersFileError(file, null, `cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  return parseProviders(source, file);
}

export function parseProviders(source: string, file = 'providers file'): ExternalProviderConfig[] {
  const { isMap, isScalar, LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(source, {
    lineCounter: lines,
    prettyErrors: false,
    strict: true,
    uniqueKeys: true,
  });
  const lineOf = (node: unknown) => {
    const offset = (node as Node | undefined)?.range?.[0];
    return offset === undefined ? null : lines.linePos(offset).line;
  };
  const fail = (node: unknown, problem: string): never => {
    throw new ProvidersFileError(file, lineOf(node), problem);
  };
  const firstError = doc.errors[0];
  if (firstError) {
    throw new ProvidersFileError(
      file,
      lines.linePos(firstError.pos[0]).line,
      `YAML is malformed: ${firstError.message.split('\n')[0]}`,
    );
  }
  if (!isMap(doc.contents)) fail(doc.contents, 'expected a mapping with a `providers` key');
  const root = doc.contents as import('yaml').YAMLMap;
  for (const pair of root.items) {
    if (!isScalar(pair.key) || pair.key.value !== 'providers')
      fail(pair.key, `unknown top-level key "${String((pair.key as { value?: unknown })?.value)}"`);
  }
  const providersNode = doc.get('providers', true) as Node | undefined;
  if (providersNode === undefined || providersNode === null) return [];
  if (!isMap(providersNode)) fail(providersNode, '`providers` must be a mapping of name → settings');
  const map = providersNode as import('yaml').YAMLMap;
  if (map.items.length > MAX_PROVIDERS) fail(map, `at most ${MAX_PROVIDERS} providers`);
  const out: ExternalProviderConfig[] = [];
  for (const pair of map.items) {
    const name = isScalar(pair.key) ? pair.key.value : undefined;
    if (typeof name !== 'string' || !NAME.test(name))
      fail(pair.key, 'a provider name must be 1–32 characters of a-z, 0-9, _ and -, starting with a letter');
    if (name === 'local') fail(pair.key, '"local" is the bundled models and cannot be configured');
    out.push(parseOne(name as string, pair.value, fail));
  }
  return out;
}

type Fail = (node: unknown, problem: string) => never;

function parseOne(name: string, node: unknown, fail: Fail): ExternalProviderConfig {
  const { isMap, isScalar } = yaml();
  if (!isMap(node)) return fail(node ?? null, `provider "${name}" must be a mapping of settings`);
  const entries = new Map<string, Node>();
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!KEYS.has(key))
      fail(pair.key, `unknown setting "${key}" of provider "${name}" (allowed: ${[...KEYS].join(', ')})`);
    entries.set(key, pair.value as Node);
  }
  const value = (key: string) => {
    const v = entries.get(key);
    return isScalar(v)
      ? v.value
      : v === undefined || v === null
        ? undefined
        : (v as { toJSON(): unknown }).toJSON();
  };
  const where = (key: string) => entries.get(key) ?? node;
  const text = (key: string, required: boolean): string | null => {
    const v = value(key);
    if (v === undefined || v === null)
      return required ? fail(node, `provider "${name}" needs \`${key}\``) : null;
    if (typeof v !== 'string' || v.trim() === '')
      return fail(where(key), `\`${key}\` of "${name}" must be a string`);
    return v.trim();
  };
  const number = (key: string, fallback: number, min: number, max: number, integer: boolean): number => {
    const v = value(key);
    if (v === undefined || v === null) return fallback;
    if (
      typeof v !== 'number' ||
      !Number.isFinite(v) ||
      v < min ||
      v > max ||
      (integer && !Number.isInteger(v))
    )
      return fail(
        where(key),
        `\`${key}\` of "${name}" must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`,
      );
    return v;
  };
  const kind = text('kind', true) as string;
  if (!(PROVIDER_KINDS as readonly string[]).includes(kind))
    fail(where('kind'), `\`kind\` of "${name}" must be one of ${PROVIDER_KINDS.join(', ')}`);
  const family = text('family', kind === 'openai-chat-guard');
  if (family !== null && kind !== 'openai-chat-guard')
    fail(where('family'), '`family` applies to openai-chat-guard only');
  if (family !== null && !(GUARD_FAMILIES as readonly string[]).includes(family))
    fail(where('family'), `\`family\` of "${name}" must be one of ${GUARD_FAMILIES.join(', ')}`);
  const model = text('model', kind === 'openai-chat-guard');
  const allowPrivateNetwork = value('allowPrivateNetwork') ?? false;
  const logprobs = value('logprobs') ?? true;
  if (typeof logprobs !== 'boolean') fail(where('logprobs'), '`logprobs` must be true or false');
  if (kind !== 'openai-chat-guard' && (entries.has('logprobs') || entries.has('maxTokens')))
    fail(
      where(entries.has('logprobs') ? 'logprobs' : 'maxTokens'),
      '`logprobs` and `maxTokens` apply to openai-chat-guard only',
    );
  if (typeof allowPrivateNetwork !== 'boolean')
    fail(where('allowPrivateNetwork'), '`allowPrivateNetwork` must be true or false');
  const url = text('url', true) as string;
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {}
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
    fail(where('url'), `\`url\` of "${name}" must be an https URL`);
  if (parsed!.protocol === 'http:' && !allowPrivateNetwork)
    fail(
      where('url'),
      `\`url\` of "${name}" must be https (plain http only with allowPrivateNetwork: true, for a model on your own network)`,
    );
  if (parsed!.username || parsed!.password)
    fail(where('url'), 'credentials do not belong in `url`; use apiKeyEnv');
  const apiKeyEnv = text('apiKeyEnv', false);
  if (apiKeyEnv !== null && !ENV_NAME.test(apiKeyEnv))
    fail(where('apiKeyEnv'), '`apiKeyEnv` names an environment variable (A-Z, 0-9, _), not the key itself');
  if (kind === 'azure-content-safety' && apiKeyEnv === null)
    fail(node, `provider "${name}" needs \`apiKeyEnv\``);
  const possible = KIND_CATEGORIES[(family ?? kind) as GuardFamily | ProviderKind];
  let categories = [...possible];
  const rawCategories = entries.get('categories');
  if (rawCategories !== undefined) {
    const list = value('categories');
    if (!Array.isArray(list) || list.length === 0)
      fail(rawCategories, `\`categories\` of "${name}" must be a non-empty list`);
    for (const c of list as unknown[])
      if (typeof c !== 'string' || !(possible as readonly string[]).includes(c))
        fail(
          rawCategories,
          `${family ?? kind} cannot judge "${String(c)}" (it can judge: ${possible.join(', ')})`,
        );
    categories = [...new Set(list as CategoryName[])];
  }
  const breakerNode = entries.get('circuitBreaker');
  let circuitBreaker = { failures: 5, openMs: 30_000 };
  if (breakerNode !== undefined) {
    const b = value('circuitBreaker') as Record<string, unknown> | undefined;
    const ok =
      b !== null &&
      typeof b === 'object' &&
      Object.keys(b).every((k) => k === 'failures' || k === 'openMs') &&
      (b.failures === undefined ||
        (Number.isInteger(b.failures) && (b.failures as number) >= 1 && (b.failures as number) <= 1000)) &&
      (b.openMs === undefined ||
        (Number.isInteger(b.openMs) && (b.openMs as number) >= 100 && (b.openMs as number) <= 3_600_000));
    if (!ok) fail(breakerNode, '`circuitBreaker` is { failures: 1–1000, openMs: 100–3600000 }');
    circuitBreaker = { ...circuitBreaker, ...(b as object) };
  }
  return {
    name,
    kind: kind as ProviderKind,
    url,
    model,
    family: family as GuardFamily | null,
    apiKeyEnv,
    timeoutMs: number('timeoutMs', 10_000, 50, 120_000, true),
    maxConcurrency: number('maxConcurrency', 16, 1, 1024, true),
    retries: number('retries', 2, 0, 10, true),
    costPerCall: number('costPerCall', 0, 0, 100, false),
    costPer1kChars: number('costPer1kChars', 0, 0, 100, false),
    categories,
    allowPrivateNetwork,
    circuitBreaker,
    logprobs: logprobs as boolean,
    maxTokens: entries.has('maxTokens') ? number('maxTokens', 0, 1, 32_768, true) : null,
  };
}
