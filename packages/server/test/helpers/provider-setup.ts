import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createTestApp, type TestApp } from './app.ts';
import { type Engine, tempDir } from './databases.ts';
import { FakeAiProviders } from './fake-ai-providers.ts';
import { createTestCa, type TestCa } from './https-receiver.ts';
import { KeywordProvider } from './keyword-provider.ts';

export const OPENAI_KEY = 'sk-fake-openai-5ecr3t-0123456789';
export const AZURE_KEY = 'az-fake-5ecr3t-9876543210';

/** The providers file of the provider tests: every kind pointed at the fake HTTPS server. */
export function providersYaml(fakeUrl: string, deadUrl: string): string {
  const common = '    allowPrivateNetwork: true\n';
  return `providers:
  openai:
    kind: openai-moderation
    url: ${fakeUrl}/v1/moderations
    model: omni-moderation-latest
    apiKeyEnv: FAKE_OPENAI_KEY
    costPerCall: 0.001
    timeoutMs: 2000
    maxConcurrency: 2
${common}  guard:
    kind: openai-chat-guard
    family: llama-guard
    model: meta-llama/Llama-Guard-3-8B
    url: ${fakeUrl}/v1/chat/completions
${common}  guard-plain:
    kind: openai-chat-guard
    family: llama-guard
    model: meta-llama/Llama-Guard-3-1B
    url: ${fakeUrl}/v1/chat/completions
    logprobs: false
    maxTokens: 8
${common}  shield:
    kind: openai-chat-guard
    family: shieldgemma
    model: google/shieldgemma-2b
    url: ${fakeUrl}/v1/chat/completions
    costPer1kChars: 0.01
${common}  safeguard:
    kind: openai-chat-guard
    family: gpt-oss-safeguard
    model: openai/gpt-oss-safeguard-20b
    url: ${fakeUrl}/v1/chat/completions
${common}  azure:
    kind: azure-content-safety
    url: ${fakeUrl}
    apiKeyEnv: FAKE_AZURE_KEY
    costPerCall: 0.0015
${common}  slow:
    kind: openai-moderation
    url: ${fakeUrl}/v1/moderations
    timeoutMs: 300
    retries: 0
${common}  dead:
    kind: openai-moderation
    url: ${deadUrl}/v1/moderations
    timeoutMs: 1000
    retries: 1
    circuitBreaker: { failures: 3, openMs: 400 }
${common}`;
}

export interface ProviderTestBed {
  t: TestApp;
  fake: FakeAiProviders;
  ca: TestCa;
  local: KeywordProvider;
  close(): Promise<void>;
}

/** A test app whose `local` is the KeywordProvider and whose providers file points at the fake APIs. */
export async function providerTestBed(
  options: { realLocal?: boolean; engine?: Engine } = {},
): Promise<ProviderTestBed> {
  const ca = createTestCa();
  const fake = new FakeAiProviders(ca);
  await fake.start();
  // a port that was free a moment ago: connections are refused
  const dead = new FakeAiProviders(ca);
  await dead.start();
  const deadUrl = dead.url;
  await dead.stop();
  const dir = tempDir('verdict-providers-');
  const file = path.join(dir, 'providers.yaml');
  fs.writeFileSync(file, providersYaml(fake.url, deadUrl));
  const { config, secrets } = loadConfig({
    VERDICT_DATA_DIR: dir,
    VERDICT_PROVIDERS_FILE: file,
    VERDICT_CA_FILE: ca.caFile,
    FAKE_OPENAI_KEY: OPENAI_KEY,
    FAKE_AZURE_KEY: AZURE_KEY,
  });
  const local = new KeywordProvider();
  const t = await createTestApp({
    config: { providers: config.providers!, caFile: config.caFile },
    secrets,
    ...(options.engine && { engine: options.engine }),
    ...(!options.realLocal && { overrides: { textProvider: local } }),
  });
  return {
    t,
    fake,
    ca,
    local,
    async close() {
      await t.close();
      await fake.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(ca.dir, { recursive: true, force: true });
    },
  };
}
