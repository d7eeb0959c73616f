import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { parseProviders } from '../src/providers/external/config-file.ts';
import { tempDir } from './helpers/databases.ts';
import { verdict } from './helpers/process.ts';

function load(yaml: string, env: Record<string, string> = {}) {
  const dir = tempDir('verdict-providers-');
  const file = path.join(dir, 'providers.yaml');
  fs.writeFileSync(file, yaml);
  return loadConfig({ VERDICT_DATA_DIR: dir, VERDICT_PROVIDERS_FILE: file, ...env });
}

function failure(yaml: string, env: Record<string, string> = {}): ConfigError {
  try {
    load(yaml, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const GOOD = `providers:
  openai:
    kind: openai-moderation
    url: https://api.openai.com/v1/moderations
    model: omni-moderation-latest
    apiKeyEnv: OPENAI_API_KEY
    costPerCall: 0.0002
  guard:
    kind: openai-chat-guard
    family: llama-guard
    model: meta-llama/Llama-Guard-3-8B
    url: http://127.0.0.1:8000/v1/chat/completions
    allowPrivateNetwork: true
    timeoutMs: 3000
    maxConcurrency: 4
  azure:
    kind: azure-content-safety
    url: https://example.cognitiveservices.azure.com
    apiKeyEnv: AZURE_CS_KEY
    categories: [hate, violence]
    costPer1kChars: 0.001
`;

describe('VERDICT_PROVIDERS_FILE', () => {
  it('loads a valid file: defaults, categories per kind, keys kept in secrets only', () => {
    const { config, secrets } = load(GOOD, { OPENAI_API_KEY: 'sk-test-123', AZURE_CS_KEY: 'az-key-456' });
    expect(config.providers?.map((p) => p.name)).toEqual(['openai', 'guard', 'azure']);
    const [openai, guard, azure] = config.providers!;
    expect(openai).toMatchObject({
      kind: 'openai-moderation',
      timeoutMs: 10_000,
      maxConcurrency: 16,
      retries: 2,
      costPerCall: 0.0002,
      categories: ['harassment', 'hate', 'violence', 'sexual', 'self_harm'],
      allowPrivateNetwork: false,
    });
    expect(guard).toMatchObject({
      family: 'llama-guard',
      categories: ['hate', 'violence', 'sexual', 'self_harm'],
    });
    expect(azure!.categories).toEqual(['hate', 'violence']);
    expect(secrets.providerKeys).toEqual({ openai: 'sk-test-123', azure: 'az-key-456' });
    expect(JSON.stringify(config)).not.toContain('sk-test-123');
  });

  it('stops the start on a missing key variable, naming the variable and not any value', () => {
    const error = failure(GOOD, { OPENAI_API_KEY: 'sk-test-123' });
    expect(error.message).toContain('AZURE_CS_KEY');
    expect(error.message).toContain('"azure"');
  });

  it.each([
    ['providers:\n  a:\n    kind: openai-moderation\n    url: [oops\n', /line \d+: YAML is malformed/],
    [
      'providers:\n  a:\n    kind: nope\n    url: https://x.example\n',
      /line 3: `kind` of "a" must be one of/,
    ],
    [
      'providers:\n  a:\n    kind: openai-moderation\n    url: http://x.example/v1/moderations\n',
      /line 4: .*must be https/,
    ],
    [
      'providers:\n  a:\n    kind: openai-moderation\n    url: https://x.example\n    timeoutMs: 0\n',
      /line 5: `timeoutMs` of "a" must be an integer from 50/,
    ],
    [
      'providers:\n  a:\n    kind: openai-moderation\n    url: https://x.example\n    apiKey: sk-123\n',
      /line 5: unknown setting "apiKey"/,
    ],
    [
      'providers:\n  a:\n    kind: openai-moderation\n    url: https://x.example\n    categories: [spam]\n',
      /line 5: openai-moderation cannot judge "spam"/,
    ],
    [
      'providers:\n  a:\n    kind: openai-chat-guard\n    url: https://x.example\n    model: m\n',
      /line 3: provider "a" needs `family`/,
    ],
    [
      'providers:\n  local:\n    kind: openai-moderation\n    url: https://x.example\n',
      /line 2: "local" is the bundled models/,
    ],
    [
      'providers:\n  a:\n    kind: openai-moderation\n    url: https://x.example\n    apiKeyEnv: sk-live-abc\n',
      /line 5: `apiKeyEnv` names an environment variable/,
    ],
    [
      'providers:\n  a:\n    kind: openai-moderation\n    url: https://x.example\n  a:\n    kind: openai-moderation\n    url: https://y.example\n',
      /line \d+: YAML is malformed/,
    ],
    ['other: 1\n', /line 1: unknown top-level key "other"/],
  ])('refuses a bad file with a message naming the line (%#)', (yaml, message) => {
    const error = failure(yaml);
    expect(error.setting).toBe('VERDICT_PROVIDERS_FILE');
    expect(error.message).toMatch(message);
  });

  it('refuses a file that cannot be read', () => {
    expect(() => loadConfig({ VERDICT_PROVIDERS_FILE: '/nonexistent/providers.yaml' })).toThrow(
      /cannot be read \(ENOENT\)/,
    );
  });

  it('an empty providers map is fine: local alone', () => {
    expect(parseProviders('providers: {}\n')).toEqual([]);
  });

  it('`verdict serve` with a bad file exits 2 and names the line; a missing key names its variable', async () => {
    const dir = tempDir('verdict-providers-');
    const file = path.join(dir, 'providers.yaml');
    fs.writeFileSync(
      file,
      'providers:\n  guard:\n    kind: openai-chat-guard\n    family: llama-guard\n    model: m\n    url: https://x.example\n    maxConcurrency: -1\n',
    );
    const res = await verdict(['serve'], {
      VERDICT_DATA_DIR: dir,
      VERDICT_PROVIDERS_FILE: file,
      VERDICT_TEXT_WARMUP: 'false',
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      `Invalid VERDICT_PROVIDERS_FILE: ${file} line 7: \`maxConcurrency\` of "guard" must be an integer`,
    );
    fs.writeFileSync(
      file,
      'providers:\n  openai:\n    kind: openai-moderation\n    url: https://x.example\n    apiKeyEnv: NOT_SET_ANYWHERE_KEY\n',
    );
    const missing = await verdict(['serve'], {
      VERDICT_DATA_DIR: dir,
      VERDICT_PROVIDERS_FILE: file,
      VERDICT_TEXT_WARMUP: 'false',
    });
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringContaining('Invalid NOT_SET_ANYWHERE_KEY: provider "openai" reads its key from it'),
    ]);
  }, 60_000);
});

describe('VERDICT_OCR_LANGUAGES', () => {
  it('defaults to the 17 languages, takes a comma-separated subset, and refuses codes the text model does not serve', () => {
    expect(loadConfig({}).config.ocr?.languages).toHaveLength(17);
    expect(loadConfig({ VERDICT_OCR_LANGUAGES: ' en, RU ,en' }).config.ocr?.languages).toEqual(['en', 'ru']);
    expect(() => loadConfig({ VERDICT_OCR_LANGUAGES: 'en,xx' })).toThrow(ConfigError);
    expect(() => loadConfig({ VERDICT_OCR_LANGUAGES: ',' })).toThrow(/VERDICT_OCR_LANGUAGES/);
    expect(() => loadConfig({ VERDICT_OCR_MAX_WORKERS: '0' })).toThrow(/VERDICT_OCR_MAX_WORKERS/);
  });
});
