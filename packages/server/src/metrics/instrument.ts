import type { Histogram } from 'prom-client';
import type { Provider, ProviderInput } from '../providers/provider.ts';

type CallHistogram = Histogram<'provider' | 'content_type' | 'outcome'>;

/**
 * The same provider, with each `evaluate` call timed into `histogram` by provider, content type and outcome
 * (`answered`, `failed`). Everything else — other methods, fields, `instanceof` — is the provider's own: methods are
 * bound to it, so its private state keeps working.
 */
export function instrumentProvider<P extends Provider>(provider: P, histogram: CallHistogram): P {
  const evaluate = async (input: ProviderInput, signal?: AbortSignal) => {
    const started = performance.now();
    let outcome = 'failed';
    try {
      const result = await provider.evaluate(input, signal);
      outcome = 'answered';
      return result;
    } finally {
      histogram.observe(
        { provider: provider.name, content_type: input.contentType, outcome },
        (performance.now() - started) / 1000,
      );
    }
  };
  return new Proxy(provider, {
    get(target, property) {
      if (property === 'evaluate') return evaluate;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
