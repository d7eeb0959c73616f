import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { type BlobStore, BlobTooLargeError, checkKey, MAX_BLOB_BYTES, tempName } from './blob-store.ts';
import { awsEncode, canonicalQuery, EMPTY_SHA256, type S3Credentials, sha256Hex, signV4 } from './sigv4.ts';

/** Where the bucket is: `endpoint` is `http(s)://host:port` (path-style requests), never with credentials. */
export interface S3Location {
  endpoint: string;
  bucket: string;
  region: string;
}

export interface S3Options {
  /** Objects larger than this go up as a multipart upload of parts this size (S3's minimum part is 5 MiB). */
  partBytes?: number;
  maxBytes?: number;
  /** One request (a part, a whole download) may take at most this long. */
  timeoutMs?: number;
}

/** A refusal of the S3 store: its status and error code, never the request's signature or credentials. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    operation: string,
  ) {
    super(`S3 ${operation} failed: ${status} ${code}`);
    this.name = 'S3Error';
  }
}

function xmlText(xml: string, tag: string): string | null {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return match ? decodeXml(match[1]!) : null;
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Blobs as objects of an S3-compatible bucket (AWS S3, MinIO, Ceph, …), spoken directly over HTTP with Signature
 * Version 4 and path-style URLs. Files go up in one PUT up to `partBytes` (8 MiB), above that as a multipart upload
 * (one part in memory at a time, aborted on failure); downloads stream to a file.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly endpoint: URL;
  private readonly partBytes: number;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly location: S3Location,
    private readonly credentials: S3Credentials,
    options: S3Options = {},
  ) {
    this.endpoint = new URL(location.endpoint);
    this.partBytes = Math.max(5 * 1024 * 1024, options.partBytes ?? 8 * 1024 * 1024);
    this.maxBytes = options.maxBytes ?? MAX_BLOB_BYTES;
    this.timeoutMs = options.timeoutMs ?? 120_000;
  }

  /** Sends one signed request; `expect` lists statuses that are answers rather than failures. */
  private async send(
    operation: string,
    method: string,
    key: string | null,
    options: { query?: Record<string, string>; body?: Buffer; headers?: Record<string, string> } = {},
    expect: number[] = [],
  ): Promise<Response> {
    const base = this.endpoint.pathname.replace(/\/+$/, '');
    const objectPath = key === null ? '' : `/${key.split('/').map(awsEncode).join('/')}`;
    const requestPath = `${base}/${awsEncode(this.location.bucket)}${objectPath}`;
    const query = options.query ?? {};
    const body = options.body;
    const headers = signV4(
      {
        method,
        path: requestPath,
        query,
        headers: options.headers ?? {},
        host: this.endpoint.host,
        payloadHash: body ? sha256Hex(body) : EMPTY_SHA256,
        region: this.location.region,
      },
      this.credentials,
    );
    const search = canonicalQuery(query);
    const url = `${this.endpoint.origin}${requestPath}${search ? `?${search}` : ''}`;
    const response = await fetch(url, {
      method,
      headers,
      ...(body && { body }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (response.ok || expect.includes(response.status)) return response;
    const text = await response.text().catch(() => '');
    throw new S3Error(response.status, xmlText(text, 'Code') ?? 'UnknownError', operation);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    checkKey(key);
    if (bytes.length > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const res = await this.send('PutObject', 'PUT', key, { body });
    await res.body?.cancel();
  }

  async get(key: string): Promise<Buffer | null> {
    checkKey(key);
    const res = await this.send('GetObject', 'GET', key, {}, [404]);
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (Number(res.headers.get('content-length') ?? 0) > this.maxBytes) {
      await res.body?.cancel();
      throw new BlobTooLargeError(this.maxBytes);
    }
    return Buffer.from(await res.arrayBuffer());
  }

  async putFile(key: string, file: string): Promise<number> {
    checkKey(key);
    const handle = await fs.promises.open(file, 'r');
    try {
      const { size } = await handle.stat();
      if (size > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
      if (size <= this.partBytes) {
        await this.put(key, await handle.readFile());
        return size;
      }
      await this.multipart(key, handle, size);
      return size;
    } finally {
      await handle.close();
    }
  }

  private async multipart(key: string, handle: fs.promises.FileHandle, size: number): Promise<void> {
    const created = await this.send('CreateMultipartUpload', 'POST', key, { query: { uploads: '' } });
    const uploadId = xmlText(await created.text(), 'UploadId');
    if (!uploadId) throw new S3Error(created.status, 'MissingUploadId', 'CreateMultipartUpload');
    try {
      const parts: string[] = [];
      const buffer = Buffer.allocUnsafe(this.partBytes);
      for (let offset = 0, number = 1; offset < size; offset += this.partBytes, number++) {
        const length = Math.min(this.partBytes, size - offset);
        let filled = 0;
        while (filled < length) {
          const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
          if (bytesRead === 0) throw new Error('The file shrank while it was being uploaded');
          filled += bytesRead;
        }
        const res = await this.send('UploadPart', 'PUT', key, {
          query: { partNumber: String(number), uploadId },
          body: buffer.subarray(0, length),
        });
        await res.body?.cancel();
        const etag = res.headers.get('etag');
        if (!etag) throw new S3Error(res.status, 'MissingETag', 'UploadPart');
        parts.push(etag);
      }
      const xml =
        '<CompleteMultipartUpload>' +
        parts
          .map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`)
          .join('') +
        '</CompleteMultipartUpload>';
      const done = await this.send('CompleteMultipartUpload', 'POST', key, {
        query: { uploadId },
        body: Buffer.from(xml),
        headers: { 'content-type': 'application/xml' },
      });
      // S3 may answer 200 and report the failure in the body
      const answer = await done.text();
      if (answer.includes('<Error>')) {
        throw new S3Error(done.status, xmlText(answer, 'Code') ?? 'UnknownError', 'CompleteMultipartUpload');
      }
    } catch (error) {
      await this.send('AbortMultipartUpload', 'DELETE', key, { query: { uploadId } }, [404])
        .then((res) => res.body?.cancel())
        .catch(() => {});
      throw error;
    }
  }

  async getToFile(key: string, file: string): Promise<boolean> {
    checkKey(key);
    const res = await this.send('GetObject', 'GET', key, {}, [404]);
    if (res.status === 404 || !res.body) {
      await res.body?.cancel();
      return false;
    }
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const temp = tempName(file);
    let bytes = 0;
    const max = this.maxBytes;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        callback(bytes > max ? new BlobTooLargeError(max) : null, chunk);
      },
    });
    try {
      await pipeline(
        Readable.fromWeb(res.body as WebReadableStream),
        meter,
        fs.createWriteStream(temp, { mode: 0o600 }),
      );
      await fs.promises.rename(temp, file);
    } catch (error) {
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    return true;
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    const res = await this.send('DeleteObject', 'DELETE', key, {}, [404]);
    await res.body?.cancel();
  }

  async list(prefix: string, before: Date, limit = 1000): Promise<string[]> {
    checkKey(prefix);
    const keys: string[] = [];
    let token: string | null = null;
    // bounded: at most 100 pages of 1000 keys are read per call
    for (let page = 0; page < 100 && keys.length < limit; page++) {
      const query: Record<string, string> = { 'list-type': '2', prefix: `${prefix}/`, 'max-keys': '1000' };
      if (token) query['continuation-token'] = token;
      const res = await this.send('ListObjectsV2', 'GET', null, { query });
      const xml = await res.text();
      for (const match of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const key = xmlText(match[1]!, 'Key');
        const modified = Date.parse(xmlText(match[1]!, 'LastModified') ?? '');
        if (key && modified < before.getTime() && keys.length < limit) keys.push(key);
      }
      token = xmlText(xml, 'IsTruncated') === 'true' ? xmlText(xml, 'NextContinuationToken') : null;
      if (!token) break;
    }
    return keys;
  }

  async deleteOlderThan(prefix: string, before: Date): Promise<number> {
    let count = 0;
    // bounded: a store that keeps listing deleted keys cannot hold the caller for ever
    for (let round = 0; round < 200; round++) {
      const keys = await this.list(prefix, before, 500);
      if (keys.length === 0) break;
      for (const key of keys) await this.delete(key);
      count += keys.length;
    }
    return count;
  }
}
