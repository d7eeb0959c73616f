import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type BlobStore, BlobTooLargeError, checkKey, MAX_BLOB_BYTES, tempName } from './blob-store.ts';

/** Blobs as files below `root`; writes are atomic (temporary file, then rename). */
export class FileBlobStore implements BlobStore {
  readonly kind = 'file' as const;

  constructor(
    private readonly root: string,
    private readonly maxBytes = MAX_BLOB_BYTES,
  ) {}

  private file(key: string): string {
    checkKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.file(key);
    if (bytes.length > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const temp = tempName(file);
    await fs.promises.writeFile(temp, bytes, { mode: 0o600 });
    await fs.promises.rename(temp, file);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.promises.readFile(this.file(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async putFile(key: string, source: string): Promise<number> {
    const file = this.file(key);
    const { size } = await fs.promises.stat(source);
    if (size > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const temp = tempName(file);
    try {
      await fs.promises.copyFile(source, temp);
      await fs.promises.rename(temp, file);
    } catch (error) {
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    return size;
  }

  async getToFile(key: string, target: string): Promise<boolean> {
    const file = this.file(key);
    const temp = tempName(target);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    try {
      if ((await fs.promises.stat(file)).size > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
      await pipeline(fs.createReadStream(file), fs.createWriteStream(temp, { mode: 0o600 }));
      await fs.promises.rename(temp, target);
      return true;
    } catch (error) {
      await fs.promises.rm(temp, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async list(prefix: string, before: Date, limit = 1000): Promise<string[]> {
    const keys: string[] = [];
    const walk = async (dir: string, key: string): Promise<void> => {
      const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (keys.length >= limit) return;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full, `${key}/${entry.name}`);
        else if (!entry.name.endsWith('.tmp')) {
          const stat = await fs.promises.stat(full).catch(() => null);
          if (stat && stat.mtimeMs < before.getTime()) keys.push(`${key}/${entry.name}`);
        }
      }
    };
    await walk(this.file(prefix), prefix);
    return keys;
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.file(key), { force: true });
  }

  async deleteOlderThan(prefix: string, before: Date): Promise<number> {
    const dir = this.file(prefix);
    let count = 0;
    const walk = async (current: string): Promise<boolean> => {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(current, { withFileTypes: true });
      } catch {
        return false;
      }
      let remaining = entries.length;
      for (const entry of entries) {
        const full = path.join(current, entry.name);
        if (entry.isDirectory()) {
          if (await walk(full)) {
            await fs.promises.rmdir(full).catch(() => {});
            remaining--;
          }
          continue;
        }
        const stat = await fs.promises.stat(full).catch(() => null);
        if (stat && stat.mtimeMs < before.getTime()) {
          await fs.promises.rm(full, { force: true });
          count++;
          remaining--;
        }
      }
      return remaining === 0;
    };
    await walk(dir);
    return count;
  }
}
