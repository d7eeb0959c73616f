import { AppError } from './errors.ts';
import { CONTENT_TYPES, type ContentType, LANGUAGES, type Language } from './taxonomy.ts';

export const MAX_TEXT_BYTES = 32 * 1024;
export const MAX_METADATA_BYTES = 8 * 1024;
export const MAX_REQUEST_ID_LENGTH = 255;

export function requireField(value: unknown, field: string): void {
  if (value === undefined || value === null) {
    throw new AppError('MISSING_REQUIRED_FIELD', `${field} is required`, { field });
  }
}

export function validateContentType(value: unknown, field = 'contentType'): ContentType {
  if (value === undefined || value === null) return 'text';
  if (typeof value !== 'string' || !(CONTENT_TYPES as readonly string[]).includes(value)) {
    throw new AppError('INVALID_CONTENT_TYPE', `${field} must be one of ${CONTENT_TYPES.join(', ')}`, {
      field,
      allowed: CONTENT_TYPES,
    });
  }
  return value as ContentType;
}

/**
 * Text: non-empty after trimming, at most 32 KB of UTF-8 (decisions §3). Lone surrogates become U+FFFD (one UTF-16
 * unit each, so positions do not move): the text checked, stored and highlighted is the same valid Unicode text.
 */
export function validateText(value: unknown, field = 'content'): string {
  requireField(value, field);
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AppError('INVALID_CONTENT', `${field} must be a non-empty string`, { field });
  }
  // a lone surrogate (half of a pair; JSON can carry one as "\ud800") is not a character: U+FFFD, natively
  const text = value.isWellFormed() ? value : value.toWellFormed();
  // Cheap bound first: a string of more than 32 K UTF-16 units is over 32 KB of UTF-8 too.
  if (text.length > MAX_TEXT_BYTES || Buffer.byteLength(text, 'utf8') > MAX_TEXT_BYTES) {
    throw new AppError('CONTENT_TOO_LARGE', `${field} is larger than 32 KB`, {
      field,
      maxBytes: MAX_TEXT_BYTES,
      bytes: Buffer.byteLength(text, 'utf8'),
    });
  }
  return text;
}

export function validateLanguage(value: unknown, field = 'language'): Language | 'auto' {
  if (value === undefined || value === null) return 'en';
  if (value === 'auto') return 'auto';
  if (typeof value !== 'string' || !(LANGUAGES as readonly string[]).includes(value)) {
    throw new AppError('UNSUPPORTED_LANGUAGE', `${field} must be one of ${LANGUAGES.join(', ')} or auto`, {
      field,
      allowed: [...LANGUAGES, 'auto'],
    });
  }
  return value as Language;
}

/**
 * `doNotStore`: true keeps the decision's content (and the text derived from it) out of storage; absent is false.
 * Not a boolean → 422 INVALID_PARAMETER. Form fields (video uploads) send it as "true" or "false".
 */
export function validateDoNotStore(
  value: unknown,
  field: string,
  options: { fromForm?: boolean } = {},
): boolean {
  if (value === undefined) return false;
  if (options.fromForm && (value === 'true' || value === 'false')) return value === 'true';
  if (typeof value !== 'boolean')
    throw new AppError('INVALID_PARAMETER', `${field} must be a boolean`, { field });
  return value;
}

export function validateMetadata(value: unknown, field = 'metadata'): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('INVALID_METADATA', `${field} must be a JSON object`, { field });
  }
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > MAX_METADATA_BYTES) {
    throw new AppError('INVALID_METADATA', `${field} is larger than 8 KB`, {
      field,
      maxBytes: MAX_METADATA_BYTES,
    });
  }
  return value as Record<string, unknown>;
}

/** `requestId` in the body and the `Idempotency-Key` header are one mechanism (decisions §5). */
export function resolveIdempotencyKey(bodyKey: unknown, headerKey: string | undefined): string | null {
  if (bodyKey !== undefined && bodyKey !== null && typeof bodyKey !== 'string') {
    throw new AppError('INVALID_PARAMETER', 'requestId must be a string', { field: 'requestId' });
  }
  const body = (bodyKey as string | undefined) || undefined;
  const header = headerKey || undefined;
  if (body !== undefined && header !== undefined && body !== header) {
    throw new AppError('INVALID_PARAMETER', 'requestId and the Idempotency-Key header differ', {
      field: 'requestId',
    });
  }
  const key = body ?? header;
  if (key === undefined) return null;
  // characters (code points), not UTF-16 units: 255 emoji are 255 characters
  if (key.length > MAX_REQUEST_ID_LENGTH && [...key].length > MAX_REQUEST_ID_LENGTH) {
    throw new AppError('INVALID_PARAMETER', 'The idempotency key is longer than 255 characters', {
      field: body !== undefined ? 'requestId' : 'Idempotency-Key',
      maxLength: MAX_REQUEST_ID_LENGTH,
    });
  }
  return key;
}
