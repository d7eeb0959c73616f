import type { APIClient, RequestOptions } from '../core.ts';
import type {
  DeliveryList,
  DeliveryListParams,
  Webhook,
  WebhookCreateParams,
  WebhookDeleted,
  WebhookList,
  WebhookTestParams,
  WebhookTestResult,
  WebhookUpdateParams,
} from '../types.ts';

/** Webhook endpoints (interface §4.9, decisions §6). Verify deliveries with `verifyWebhookSignature`. */
export class Webhooks {
  constructor(private readonly client: APIClient) {}

  /** Registers an endpoint; the response carries its signing `secret`, shown only here and on rotation. */
  create(params: WebhookCreateParams, options?: RequestOptions): Promise<Webhook> {
    return this.client.call('post', '/v1/webhooks', { body: params, idempotent: true }, options);
  }

  list(options?: RequestOptions): Promise<WebhookList> {
    return this.client.call('get', '/v1/webhooks', {}, options);
  }

  get(webhookId: string, options?: RequestOptions): Promise<Webhook> {
    return this.client.call('get', '/v1/webhooks/{webhookId}', { path: { webhookId } }, options);
  }

  update(webhookId: string, params: WebhookUpdateParams, options?: RequestOptions): Promise<Webhook> {
    return this.client.call(
      'patch',
      '/v1/webhooks/{webhookId}',
      { path: { webhookId }, body: params },
      options,
    );
  }

  delete(webhookId: string, options?: RequestOptions): Promise<WebhookDeleted> {
    return this.client.call('delete', '/v1/webhooks/{webhookId}', { path: { webhookId } }, options);
  }

  /** Sends one signed event of `eventType` now and reports how the endpoint answered. */
  test(webhookId: string, params: WebhookTestParams, options?: RequestOptions): Promise<WebhookTestResult> {
    return this.client.call(
      'post',
      '/v1/webhooks/{webhookId}/test',
      { path: { webhookId }, body: params },
      options,
    );
  }

  /** Delivery attempts, newest first. */
  deliveries(
    webhookId: string,
    params: DeliveryListParams = {},
    options?: RequestOptions,
  ): Promise<DeliveryList> {
    return this.client.call(
      'get',
      '/v1/webhooks/{webhookId}/deliveries',
      { path: { webhookId }, query: params },
      options,
    );
  }

  /** Issues a new secret (in the response); the previous one keeps signing for 24 hours. */
  rotateSecret(webhookId: string, options?: RequestOptions): Promise<Webhook> {
    return this.client.call(
      'post',
      '/v1/webhooks/{webhookId}/rotate-secret',
      { path: { webhookId } },
      options,
    );
  }
}
