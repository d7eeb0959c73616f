import type { ContentType } from '../domain/taxonomy.ts';
import type { Provider } from './provider.ts';

/** Chooses the provider for each content type. Built once by the composition root. */
export class ProviderRegistry {
  private readonly byType = new Map<ContentType, Provider>();

  constructor(providers: Provider[]) {
    for (const provider of providers) {
      for (const type of provider.contentTypes) if (!this.byType.has(type)) this.byType.set(type, provider);
    }
  }

  get(type: ContentType): Provider | undefined {
    return this.byType.get(type);
  }

  all(): Provider[] {
    return [...new Set(this.byType.values())];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((p) => p.close?.()));
  }
}
