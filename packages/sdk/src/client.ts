import { APIClient, type RequestOptions } from './core.ts';
import { AccountResource, Accounts, Keys, ProvidersResource, UsageResource } from './resources/admin.ts';
import { Audit } from './resources/audit.ts';
import { Banks } from './resources/banks.ts';
import { Batch } from './resources/batch.ts';
import { Decisions } from './resources/decisions.ts';
import { Lists } from './resources/lists.ts';
import { Policies } from './resources/policies.ts';
import { Review } from './resources/review.ts';
import { StatsResource } from './resources/stats.ts';
import { Video } from './resources/video.ts';
import { Webhooks } from './resources/webhooks.ts';
import type {
  CheckParams,
  CheckResult,
  DryRunParams,
  DryRunResult,
  MultimodalParams,
  MultimodalResult,
} from './types.ts';

/**
 * The Verdict client: one method per endpoint, grouped by resource.
 *
 * ```ts
 * const verdict = new Verdict({ apiKey: process.env.VERDICT_API_KEY, baseUrl: 'https://verdict.example.com' });
 * const result = await verdict.check({ content: 'hello', policyId: 'default' });
 * ```
 */
export class Verdict extends APIClient {
  readonly batch = new Batch(this);
  readonly policies = new Policies(this);
  readonly decisions = new Decisions(this);
  readonly video = new Video(this);
  readonly webhooks = new Webhooks(this);
  readonly banks = new Banks(this);
  readonly lists = new Lists(this);
  readonly keys = new Keys(this);
  readonly accounts = new Accounts(this);
  readonly account = new AccountResource(this);
  readonly usage = new UsageResource(this);
  readonly providers = new ProvidersResource(this);
  readonly stats = new StatsResource(this);
  readonly audit = new Audit(this);
  /** Human review queues, appeals and statements of reasons. */
  readonly review = new Review(this);

  /** Checks one text, image or video URL against a policy and stores the decision. */
  check(params: CheckParams, options?: RequestOptions): Promise<CheckResult> {
    return this.call('post', '/v1/check', { body: params, idempotent: true }, options);
  }

  /** Applies a policy to `mockScores`; no model runs and nothing is stored. */
  checkDryRun(params: DryRunParams, options?: RequestOptions): Promise<DryRunResult> {
    return this.call('post', '/v1/check/dry-run', { body: params, repeatable: true }, options);
  }

  /** Checks text and up to 10 images together; one decision. */
  checkMultimodal(params: MultimodalParams, options?: RequestOptions): Promise<MultimodalResult> {
    return this.call('post', '/v1/check/multimodal', { body: params, idempotent: true }, options);
  }
}
