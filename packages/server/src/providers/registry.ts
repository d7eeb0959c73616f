import type { ContentType } from '../domain/taxonomy.ts';
import type { Provider } from './provider.ts';

/**
 * The providers by content type (the bundled models, `local`) and by name (the operator's external ones, from
 * VERDICT_PROVIDERS_FILE). Built once by the composition root.
 */
export class ProviderRegistry {
  private readonly byType = new Map<ContentType, Provider>();
  private readonly byName = new Map<string, Provider>();

  constructor(providers: Provider[], external: Provider[] = []) {
    for (const provider of providers) {
      for (const type of provider.contentTypes) if (!this.byType.has(type)) this.byType.set(type, provider);
    }
    for (const provider of external) this.byName.set(provider.name, provider);
  }

  get(type: ContentType): Provider | undefined {
    return this.byType.get(type);
  }

  /** A provider by name: `local` is the bundled model for the content type (default text). */
  named(name: string, contentType: ContentType = 'text'): Provider | undefined {
    return name === 'local' ? this.byType.get(contentType) : this.byName.get(name);
  }

  /** Every name a policy may route to. */
  names(): string[] {
    return ['local', ...this.byName.keys()];
  }

  external(): Provider[] {
    return [...this.byName.values()];
  }

  all(): Provider[] {
    return [...new Set(this.byType.values())];
  }

  async close(): Promise<void> {
    await Promise.all([...this.all(), ...this.external()].map((p) => p.close?.()));
  }
}
