import dns from 'node:dns';
import net from 'node:net';
import { checkTlsConnection, isPublicAddress, UnsafeUrlError } from '../media/safe-fetch.ts';
import { AppError } from './errors.ts';

const MAX_URL_LENGTH = 2048;

/** A webhook URL must be a valid https URL without credentials (decisions §6.6). */
export function parseWebhookUrl(value: unknown, field: string): URL {
  if (value === undefined || value === null) {
    throw new AppError('MISSING_REQUIRED_FIELD', `${field} is required`, { field });
  }
  const invalid = (message: string) => new AppError('INVALID_WEBHOOK_URL', message, { field });
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) {
    throw invalid(`${field} must be an https URL of at most ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field} is not a valid URL`);
  }
  if (url.protocol !== 'https:') throw invalid(`${field} must use https`);
  if (url.username !== '' || url.password !== '') throw invalid(`${field} must not contain credentials`);
  if (url.hash !== '') throw invalid(`${field} must not contain a fragment`);
  return url;
}

/**
 * Refuses URLs whose host is, or resolves to, a non-public address unless private URLs are allowed. Deliveries
 * check again where they connect (safe fetcher), so DNS changes after this check cannot get through either.
 */
export async function assertPublicWebhookUrl(url: URL, allowPrivate: boolean, field: string): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw new AppError('INVALID_WEBHOOK_URL', `The host of ${field} does not resolve`, { field });
    }
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a))) {
    throw new AppError('INVALID_WEBHOOK_URL', `${field} must point to a public address`, { field });
  }
}

/** Registration and URL updates open a TLS connection first (decisions §6.6). */
export async function assertWebhookReachable(
  url: URL,
  options: { allowPrivate: boolean; ca?: string | Buffer | Array<string | Buffer> },
  field: string,
): Promise<void> {
  try {
    await checkTlsConnection(url.toString(), {
      allowPrivate: options.allowPrivate,
      connectTimeoutMs: 10_000,
      ...(options.ca !== undefined && { ca: options.ca }),
    });
  } catch (error) {
    if (error instanceof UnsafeUrlError) {
      if (
        error.reason === 'private_address' ||
        error.reason === 'invalid_url' ||
        error.reason === 'protocol'
      ) {
        throw new AppError('INVALID_WEBHOOK_URL', `${field} must point to a public https address`, { field });
      }
      throw new AppError('WEBHOOK_URL_UNREACHABLE', `Could not open a TLS connection to ${field}`, {
        field,
        reason: error.reason,
      });
    }
    throw error;
  }
}
