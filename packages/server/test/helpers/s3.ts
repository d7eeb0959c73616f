import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
// s3rver (a dev dependency) is an S3-compatible server in Node that checks Signature Version 4 like S3 does.
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import { tempDir } from './databases.ts';

/** s3rver's built-in account. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3 {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  close(): Promise<void>;
}

/** Starts s3rver on a free port with one empty bucket in a temp directory (removed on close). */
export async function startS3(bucket = 'verdict-test'): Promise<TestS3> {
  const directory = tempDir('verdict-s3-');
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    resetOnClose: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
