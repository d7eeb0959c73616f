/** The one error vocabulary: every error the API can answer with, and its HTTP status. */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  EXPIRED_API_KEY: 401,
  REVOKED_API_KEY: 401,
  QUOTA_EXCEEDED: 402,
  TRIAL_EXPIRED: 402,
  INSUFFICIENT_PERMISSIONS: 403,
  POLICY_NOT_ACCESSIBLE: 403,
  /** a console (cookie) request that changes state without its session's CSRF token */
  INVALID_CSRF_TOKEN: 403,
  NOT_FOUND: 404,
  POLICY_NOT_FOUND: 404,
  DECISION_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  BATCH_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  BANK_NOT_FOUND: 404,
  BANK_ITEM_NOT_FOUND: 404,
  POLICY_VERSION_NOT_FOUND: 404,
  BACKTEST_NOT_FOUND: 404,
  SHADOW_NOT_FOUND: 404,
  LIST_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  DUPLICATE_POLICY_ID: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  DUPLICATE_BANK: 409,
  DUPLICATE_BANK_ITEM: 409,
  /** deleting a policy an active shadow uses (as its live or its shadow policy) */
  POLICY_IN_USE: 409,
  /** deleting a built-in policy */
  POLICY_READ_ONLY: 409,
  DUPLICATE_LIST: 409,
  /** a list that a policy names cannot be deleted */
  LIST_IN_USE: 409,
  /** a review of a queue item another reviewer key holds the lease of */
  REVIEW_LEASED: 409,
  /** an appeal of a decision that already has an open one */
  APPEAL_ALREADY_OPEN: 409,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_CONTENT: 422,
  CONTENT_TOO_LARGE: 422,
  INVALID_CONTENT_TYPE: 422,
  INVALID_POLICY_ID: 422,
  INVALID_IMAGE_URL: 422,
  INVALID_VIDEO_URL: 422,
  INVALID_BASE64: 422,
  MISSING_REQUIRED_FIELD: 422,
  INVALID_METADATA: 422,
  INVALID_PARAMETER: 422,
  UNSUPPORTED_LANGUAGE: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  TOO_MANY_ITEMS: 422,
  INVALID_BATCH_ITEM: 422,
  INVALID_YAML: 422,
  INVALID_THRESHOLD: 422,
  INVALID_ACTION: 422,
  INVALID_POLICY: 422,
  INVALID_WEBHOOK_URL: 422,
  WEBHOOK_URL_UNREACHABLE: 422,
  INVALID_EVENT_TYPE: 422,
  INVALID_SCOPE: 422,
  RATE_LIMIT_EXCEEDED: 429,
  BURST_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  PROVIDER_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorDetails = Record<string, unknown>;

/** A failure with a spec code. Domain code throws these; the API's error handler renders them. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
