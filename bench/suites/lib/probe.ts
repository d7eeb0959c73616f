import fs from 'node:fs';

/** Resident set size of a process in MB, from /proc/<pid>/status (Linux); null when it cannot be read. */
export function rssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Size of a file in bytes, 0 when it does not exist. */
export function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

export const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The q-quantile of ascending-sorted numbers. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
