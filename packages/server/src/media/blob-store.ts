import fs from 'node:fs';
import path from 'node:path';

/**
 * Where evidence frames live. The default keeps them as files under the data directory; a shared store (e.g. an
 * S3 bucket) implements the same four calls when API instances run on several machines.
 */
export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or null when there is no such blob. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  /** Deletes blobs under `prefix` written before `before`; returns how many. */
  deleteOlderThan(prefix: string, before: Date): Promise<number>;
}

const KEY = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_.-]+)*$/;

function checkKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error('Invalid blob key');
  }
}

/** Blobs as files below `root`; writes are atomic (temporary file, then rename). */
export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private file(key: string): string {
    checkKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const file = this.file(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
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
