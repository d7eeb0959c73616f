/** Error details: an object in the main error form, a string in the older flat form. */
export type ErrorDetails = Record<string, unknown> | string | undefined;

export interface VerdictErrorInit {
  message: string;
  code: string;
  status?: number;
  details?: ErrorDetails;
  requestId?: string;
  headers?: Headers;
  cause?: unknown;
}

/** Every failure of the SDK. `code` is the service's stable error code, e.g. `POLICY_NOT_FOUND`. */
export class VerdictError extends Error {
  /** HTTP status; undefined when no response was received. */
  readonly status: number | undefined;
  readonly code: string;
  readonly details: ErrorDetails;
  /** The service's request ID (`X-Request-Id`), to quote in support requests and find in logs. */
  readonly requestId: string | undefined;
  readonly headers: Headers | undefined;

  constructor(init: VerdictErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }
}

/** 400: the request could not be parsed (e.g. `INVALID_JSON`). */
export class BadRequestError extends VerdictError {}
/** 401: missing, invalid, expired or revoked API key. */
export class AuthenticationError extends VerdictError {}
/** 402: `QUOTA_EXCEEDED` or `TRIAL_EXPIRED`. */
export class PaymentRequiredError extends VerdictError {}
/** 403: `INSUFFICIENT_PERMISSIONS` or `POLICY_NOT_ACCESSIBLE`. */
export class PermissionDeniedError extends VerdictError {}
/** 404: `POLICY_NOT_FOUND`, `DECISION_NOT_FOUND`, `WEBHOOK_NOT_FOUND`, … */
export class NotFoundError extends VerdictError {}
/** 409: `DUPLICATE_POLICY_ID`, or `IDEMPOTENCY_KEY_IN_USE` (still running) once retries are exhausted. */
export class ConflictError extends VerdictError {}
/** 422: validation failed; `details` names the field at fault. */
export class UnprocessableEntityError extends VerdictError {}
/** 429: `RATE_LIMIT_EXCEEDED` or `BURST_LIMIT_EXCEEDED` once retries are exhausted. */
export class RateLimitError extends VerdictError {
  /** Seconds to wait, from `Retry-After` or the body. */
  readonly retryAfter: number | undefined;
  constructor(init: VerdictErrorInit & { retryAfter?: number }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}
/** 5xx: `INTERNAL_ERROR`, `PROVIDER_ERROR` (502), `SERVICE_UNAVAILABLE` (503). */
export class InternalServerError extends VerdictError {}
/** The service could not be reached, or the connection broke. */
export class APIConnectionError extends VerdictError {}
/** No complete response within the client's `timeout`. */
export class APITimeoutError extends APIConnectionError {}
/** The caller aborted the request through its `signal`. */
export class APIUserAbortError extends VerdictError {}

/** Codes for bodies that carry none (the rate-limit form, proxies' HTML pages); other statuses get `HTTP_<n>`. */
const FALLBACK_CODES: Record<number, string> = {
  429: 'RATE_LIMIT_EXCEEDED',
  500: 'INTERNAL_ERROR',
  // a gateway's own 502/504 page says nothing about the content provider (the service's PROVIDER_ERROR has a body)
  502: 'SERVICE_UNAVAILABLE',
  503: 'SERVICE_UNAVAILABLE',
  504: 'SERVICE_UNAVAILABLE',
};

/** An error code as the service writes them (the rate-limit form may put it in `error`). */
const CODE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return undefined;
}

function detailsOf(value: unknown): ErrorDetails {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return undefined;
}

/**
 * Reads an error body in any of the three forms the service documents:
 * `{ error: { code, message, details, requestId } }` (main), `{ error: string, code, details }` (older, flat) and
 * `{ error: string, retryAfter }` (rate limit). A body in none of them still yields a code from the status.
 */
export function parseErrorBody(
  status: number,
  body: unknown,
): { code: string; message: string; details: ErrorDetails; requestId?: string; retryAfter?: number } {
  const fallbackCode = FALLBACK_CODES[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : `HTTP_${status}`);
  const fallbackMessage = `HTTP ${status}`;
  if (!body || typeof body !== 'object') {
    const text = typeof body === 'string' ? body.trim().slice(0, 500) : '';
    return { code: fallbackCode, message: text || fallbackMessage, details: undefined };
  }
  const root = body as Record<string, unknown>;
  const error = root.error;
  if (error && typeof error === 'object' && !Array.isArray(error)) {
    const main = error as Record<string, unknown>;
    const details = detailsOf(main.details);
    const retryAfter =
      details && typeof details === 'object' ? num(details.retryAfter) : num(root.retryAfter);
    return {
      code: str(main.code) ?? str(root.code) ?? fallbackCode,
      message: str(main.message) ?? fallbackMessage,
      details,
      requestId: str(main.requestId),
      ...(retryAfter !== undefined && { retryAfter }),
    };
  }
  const retryAfter = num(root.retryAfter);
  const details = detailsOf(root.details) ?? (retryAfter !== undefined ? { retryAfter } : undefined);
  const flatError = str(error);
  return {
    code: str(root.code) ?? (flatError && CODE.test(flatError) ? flatError : undefined) ?? fallbackCode,
    message: flatError ?? str(root.message) ?? fallbackMessage,
    details,
    requestId: str(root.requestId),
    ...(retryAfter !== undefined && { retryAfter }),
  };
}

/** The error of an HTTP response that was not a success: one class per status. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): VerdictError {
  const parsed = parseErrorBody(status, body);
  const init: VerdictErrorInit = {
    status,
    code: parsed.code,
    message: parsed.message,
    details: parsed.details,
    requestId: parsed.requestId ?? headers.get('x-request-id') ?? undefined,
    headers,
  };
  switch (status) {
    case 400:
      return new BadRequestError(init);
    case 401:
      return new AuthenticationError(init);
    case 402:
      return new PaymentRequiredError(init);
    case 403:
      return new PermissionDeniedError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 422:
      return new UnprocessableEntityError(init);
    case 429:
      return new RateLimitError({
        ...init,
        retryAfter: num(headers.get('retry-after')) ?? parsed.retryAfter,
      });
  }
  return status >= 500 ? new InternalServerError(init) : new VerdictError(init);
}
