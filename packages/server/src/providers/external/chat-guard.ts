import type { CategoryName } from '../../domain/taxonomy.ts';
import { bearer, ExternalProvider, type Judgement } from './external-provider.ts';
import {
  llamaGuardMessages,
  parseLlamaGuard,
  parseSafeguard,
  parseShieldGemma,
  readChatAnswer,
  safeguardMessages,
  shieldGemmaMessages,
} from './guard-templates.ts';

/**
 * `kind: openai-chat-guard`: a safety model behind any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp,
 * Ollama, a hosted API). `family` chooses the prompt and the strict parser of its answer; log probabilities, when the
 * server returns them, turn the answer into a probability.
 */
export class ChatGuardProvider extends ExternalProvider {
  protected async judge(text: string, categories: CategoryName[], signal?: AbortSignal): Promise<Judgement> {
    switch (this.config.family) {
      case 'llama-guard': {
        const answer = await this.complete(llamaGuardMessages(text), 20, signal);
        return { scores: parseLlamaGuard(this.name, answer, categories), calls: 1 };
      }
      case 'shieldgemma': {
        // one policy per prompt, as the model was trained; the calls share the provider's concurrency bound
        const scores = await Promise.all(
          categories.map(async (category) => {
            const answer = await this.complete(shieldGemmaMessages(text, category), 1, signal);
            return [category, parseShieldGemma(this.name, answer)] as const;
          }),
        );
        return { scores: Object.fromEntries(scores), calls: categories.length };
      }
      default: {
        // gpt-oss reasons before it answers, and its reasoning counts against max_tokens
        const answer = await this.complete(safeguardMessages(text, categories), 2048, signal, {
          reasoning_effort: 'low',
        });
        return { scores: parseSafeguard(this.name, answer, categories), calls: 1 };
      }
    }
  }

  private async complete(
    messages: { role: string; content: string }[],
    maxTokens: number,
    signal?: AbortSignal,
    extra: Record<string, unknown> = {},
  ) {
    const body = {
      model: this.config.model,
      messages,
      temperature: 0,
      max_tokens: this.config.maxTokens ?? maxTokens,
      ...(this.config.logprobs && { logprobs: true, top_logprobs: 5 }),
      ...extra,
    };
    return readChatAnswer(
      this.name,
      await this.http.postJson(this.config.url, body, bearer(this.apiKey), signal),
    );
  }
}
