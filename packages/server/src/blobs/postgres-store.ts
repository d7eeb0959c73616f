import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../storage/database.ts';
import { type BlobStore, BlobTooLargeError, checkKey, MAX_BLOB_BYTES, tempName } from './blob-store.ts';

/** Rows of the `blobs` table hold at most this much of a blob each. */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * Blobs in PostgreSQL (table `blobs`: one row per 1 MB chunk). Writes are one transaction (a reader never sees half
 * a blob); reads run in a REPEATABLE READ transaction and fetch one chunk at a time, so a video streams between a
 * file and the database with about a megabyte in memory. For scaled-out deployments without an object store.
 */
export class PostgresBlobStore implements BlobStore {
  readonly kind = 'postgres' as const;

  constructor(
    private readonly db: Db,
    private readonly maxBytes = MAX_BLOB_BYTES,
  ) {}

  async put(key: string, bytes: Uint8Array): Promise<void> {
    checkKey(key);
    if (bytes.length > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    await this.write(key, async (insert) => {
      for (let offset = 0, chunk = 0; offset < data.length || chunk === 0; offset += CHUNK_BYTES, chunk++) {
        await insert(chunk, data.subarray(offset, offset + CHUNK_BYTES));
      }
    });
  }

  async putFile(key: string, file: string): Promise<number> {
    checkKey(key);
    let total = 0;
    await this.write(key, async (insert) => {
      const handle = await fs.promises.open(file, 'r');
      try {
        for (let chunk = 0; ; chunk++) {
          const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
          let filled = 0;
          while (filled < CHUNK_BYTES) {
            const { bytesRead } = await handle.read(buffer, filled, CHUNK_BYTES - filled, null);
            if (bytesRead === 0) break;
            filled += bytesRead;
          }
          total += filled;
          if (total > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
          if (filled > 0 || chunk === 0) await insert(chunk, buffer.subarray(0, filled));
          if (filled < CHUNK_BYTES) break;
        }
      } finally {
        await handle.close();
      }
    });
    return total;
  }

  /** Replaces the blob's chunks in one transaction; `fill` inserts them in order. */
  private async write(
    key: string,
    fill: (insert: (chunk: number, data: Buffer) => Promise<void>) => Promise<void>,
  ): Promise<void> {
    const createdAt = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('blobs').where('key', '=', key).execute();
      await fill(async (chunk, data) => {
        await trx.insertInto('blobs').values({ key, chunk, data, created_at: createdAt }).execute();
      });
    });
  }

  async get(key: string): Promise<Buffer | null> {
    checkKey(key);
    const parts: Buffer[] = [];
    const found = await this.read(key, (data) => {
      parts.push(data);
    });
    return found ? Buffer.concat(parts) : null;
  }

  async getToFile(key: string, file: string): Promise<boolean> {
    checkKey(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const temp = tempName(file);
    const handle = await fs.promises.open(temp, 'w', 0o600);
    let found = false;
    try {
      found = await this.read(key, async (data) => {
        await handle.write(data);
      });
      await handle.sync();
    } finally {
      await handle.close();
      if (!found) await fs.promises.rm(temp, { force: true });
    }
    if (!found) return false;
    try {
      await fs.promises.rename(temp, file);
    } catch (error) {
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    return true;
  }

  /** Hands the blob's chunks to `each` in order, from one snapshot; false when there is no such blob. */
  private read(key: string, each: (data: Buffer) => unknown): Promise<boolean> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const last = await trx
          .selectFrom('blobs')
          .select((eb) => eb.fn.max('chunk').as('last'))
          .where('key', '=', key)
          .executeTakeFirst();
        if (last?.last === null || last?.last === undefined) return false;
        let total = 0;
        for (let chunk = 0; chunk <= Number(last.last); chunk++) {
          const row = await trx
            .selectFrom('blobs')
            .select('data')
            .where('key', '=', key)
            .where('chunk', '=', chunk)
            .executeTakeFirst();
          if (!row) throw new Error(`Blob ${key} lacks chunk ${chunk}`);
          total += row.data.length;
          if (total > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
          await each(Buffer.from(row.data));
        }
        return true;
      });
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await this.db.deleteFrom('blobs').where('key', '=', key).execute();
  }

  async list(prefix: string, before: Date, limit = 1000): Promise<string[]> {
    checkKey(prefix);
    const rows = await this.db
      .selectFrom('blobs')
      .select('key')
      .where('chunk', '=', 0)
      .where(sql<boolean>`starts_with(key, ${`${prefix}/`})`)
      .where('created_at', '<', before.toISOString())
      .orderBy('key')
      .limit(limit)
      .execute();
    return rows.map((r) => r.key);
  }

  async deleteOlderThan(prefix: string, before: Date): Promise<number> {
    let count = 0;
    for (;;) {
      const keys = await this.list(prefix, before, 500);
      if (keys.length === 0) return count;
      await this.db.deleteFrom('blobs').where('key', 'in', keys).execute();
      count += keys.length;
    }
  }
}
