import type { CategoryName } from '../../domain/taxonomy.ts';
import {
  bearer,
  ExternalProvider,
  isObject,
  type Judgement,
  malformed,
  probability,
} from './external-provider.ts';

/**
 * OpenAI's moderation categories behind each Verdict category: a Verdict category scores the highest of them.
 * Threats (harassment/threatening, hate/threatening) are violence too, as the bundled model judges them.
 */
export const OPENAI_SOURCES: Partial<Record<CategoryName, string[]>> = {
  harassment: ['harassment', 'harassment/threatening'],
  hate: ['hate', 'hate/threatening'],
  violence: ['violence', 'violence/graphic', 'harassment/threatening', 'hate/threatening'],
  sexual: ['sexual', 'sexual/minors'],
  self_harm: ['self-harm', 'self-harm/intent', 'self-harm/instructions'],
};

/** `kind: openai-moderation`: POST {url} with `{ input, model }` (OpenAI's /v1/moderations shape). */
export class OpenAIModerationProvider extends ExternalProvider {
  protected async judge(text: string, categories: CategoryName[], signal?: AbortSignal): Promise<Judgement> {
    const body = { input: text, ...(this.config.model && { model: this.config.model }) };
    const answer = await this.http.postJson(this.config.url, body, bearer(this.apiKey), signal);
    if (!isObject(answer) || !Array.isArray(answer.results) || answer.results.length !== 1)
      throw malformed(this.name, 'expected `results` with one entry');
    const result = answer.results[0];
    if (!isObject(result) || !isObject(result.category_scores))
      throw malformed(this.name, 'expected `results[0].category_scores`');
    const given = result.category_scores;
    const scores: Partial<Record<CategoryName, number>> = {};
    for (const category of categories) {
      const sources = (OPENAI_SOURCES[category] ?? []).filter((s) => s in given);
      // the base category must be there; the sub-categories vary with the model (text-moderation vs omni)
      const base = OPENAI_SOURCES[category]?.[0];
      if (!base || !(base in given)) throw malformed(this.name, `no score for "${base ?? category}"`);
      let score = 0;
      for (const source of sources) {
        const value = given[source];
        if (!probability(value))
          throw malformed(this.name, `score of "${source}" is not a number from 0 to 1`);
        score = Math.max(score, value);
      }
      scores[category] = score;
    }
    const model = typeof answer.model === 'string' ? answer.model.slice(0, 100) : null;
    return { scores, calls: 1, ...(model && { modelVersion: `openai-moderation:${model}` }) };
  }
}
