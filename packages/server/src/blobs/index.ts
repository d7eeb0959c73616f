import path from 'node:path';
import type { Config, Secrets } from '../config.ts';
import type { DatabaseHandle } from '../storage/database.ts';
import type { BlobStore } from './blob-store.ts';
import { FileBlobStore } from './file-store.ts';
import { PostgresBlobStore } from './postgres-store.ts';
import { S3BlobStore } from './s3-store.ts';

export type { BlobStore } from './blob-store.ts';

/**
 * The blob store of this deployment: the S3-compatible bucket of VERDICT_S3_URL when set, else PostgreSQL when the
 * database is PostgreSQL (instances on several machines share it), else files under the data directory.
 */
export function createBlobStore(
  config: Pick<Config, 'dataDir' | 'database' | 's3'>,
  secrets: Pick<Secrets, 's3'>,
  database: DatabaseHandle,
): BlobStore {
  if (config.s3) {
    if (!secrets.s3) throw new Error('VERDICT_S3_URL is set but its credentials are missing');
    return new S3BlobStore(config.s3, secrets.s3);
  }
  if (database.engine === 'postgres') return new PostgresBlobStore(database.db);
  return new FileBlobStore(path.join(config.dataDir, 'blobs'));
}

/** Where an accepted video's bytes wait for a worker (stores shared between machines only). */
export function videoKey(id: string): string {
  return `videos/${id}`;
}
