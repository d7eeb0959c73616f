import { createHash, createHmac } from 'node:crypto';

/** An access key pair of an S3-compatible store. Secret: never logged, never part of an error message. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** RFC 3986 percent-encoding, as AWS Signature Version 4 wants it (`encodeURIComponent` leaves `!'()*`). */
export function awsEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The canonical query string: parameters sorted by name, names and values encoded. */
export function canonicalQuery(query: Record<string, string>): string {
  return Object.keys(query)
    .sort()
    .map((name) => `${awsEncode(name)}=${awsEncode(query[name]!)}`)
    .join('&');
}

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

export interface SignInput {
  method: string;
  /** Already encoded path (`/bucket/key`), exactly as sent. */
  path: string;
  query: Record<string, string>;
  /** Headers to sign besides host, x-amz-date and x-amz-content-sha256 (lower-case names). */
  headers: Record<string, string>;
  host: string;
  payloadHash: string;
  region: string;
  service?: string;
  date?: Date;
}

/**
 * Signs a request with AWS Signature Version 4 (header form): returns the headers to send — the given ones plus
 * `x-amz-date`, `x-amz-content-sha256` and `authorization`.
 */
export function signV4(input: SignInput, credentials: S3Credentials): Record<string, string> {
  const date = input.date ?? new Date();
  const amzDate = date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const service = input.service ?? 's3';
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k.toLowerCase(), v])),
    'x-amz-content-sha256': input.payloadHash,
    'x-amz-date': amzDate,
  };
  const all: Record<string, string> = { ...headers, host: input.host };
  const names = Object.keys(all).sort();
  const canonicalHeaders = names.map((n) => `${n}:${all[n]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    input.method,
    input.path,
    canonicalQuery(input.query),
    canonicalHeaders,
    signedHeaders,
    input.payloadHash,
  ].join('\n');
  const scope = `${day}/${input.region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), input.region), service),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  headers.authorization =
    `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, ` +
    `SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
