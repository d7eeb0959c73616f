export { Verdict, Verdict as default } from './client.ts';
export {
  APIClient,
  type ClientOptions,
  type Fetch,
  type FetchInit,
  type FetchResponse,
  newIdempotencyKey,
  type RequestOptions,
} from './core.ts';
export {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type ErrorDetails,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  parseErrorBody,
  RateLimitError,
  UnprocessableEntityError,
  VerdictError,
} from './errors.ts';
export type { components, paths } from './generated/openapi.ts';
export { PagePromise } from './pagination.ts';
export type * from './pending-types.ts';
export type { PolicyCreateParams } from './resources/policies.ts';
export type { VideoUploadParams, WaitOptions } from './resources/video.ts';
export { BASE_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS, parseRetryAfter, retryDelay } from './retries.ts';
export type * from './types.ts';
export {
  computeSignature,
  constructEvent,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  type SignatureHeaderValue,
  type VerifyOptions,
  verifyWebhookSignature,
  type WebhookEvent,
  type WebhookPayload,
  WebhookVerificationError,
} from './webhooks-signature.ts';
