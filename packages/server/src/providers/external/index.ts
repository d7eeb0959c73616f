import { AzureContentSafetyProvider } from './azure-content-safety.ts';
import { ChatGuardProvider } from './chat-guard.ts';
import type { ExternalProviderConfig } from './config-file.ts';
import type { ExternalProvider } from './external-provider.ts';
import { type ProviderFetchOptions, ProviderHttp } from './http.ts';
import { OpenAIModerationProvider } from './openai-moderation.ts';

export type { ExternalProvider } from './external-provider.ts';

/** Builds the provider a providers-file entry describes. */
export function createExternalProvider(
  config: ExternalProviderConfig,
  apiKey: string | null,
  fetchOptions: ProviderFetchOptions = {},
): ExternalProvider {
  const http = new ProviderHttp(config, fetchOptions);
  switch (config.kind) {
    case 'openai-moderation':
      return new OpenAIModerationProvider(config, http, apiKey);
    case 'openai-chat-guard':
      return new ChatGuardProvider(config, http, apiKey);
    case 'azure-content-safety':
      return new AzureContentSafetyProvider(config, http, apiKey);
  }
}
