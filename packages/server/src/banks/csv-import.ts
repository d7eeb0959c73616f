import { AppError } from '../domain/errors.ts';
import { MAX_IMPORT_ROWS, MAX_LABEL_LENGTH } from './limits.ts';
import type { HashType } from './types.ts';

export interface ImportedHash {
  hashType: HashType;
  hash: string;
  label: string | null;
}

const HEX = { pdq: /^[0-9a-f]{64}$/, sha256: /^[0-9a-f]{64}$/, md5: /^[0-9a-f]{32}$/ } as const;

/** ThreatExchange signal type names (`threatexchange dataset --csv`, HMA exports) and ours → hash type. */
const SIGNAL_TYPES: Record<string, HashType> = {
  pdq: 'pdq',
  hash_pdq: 'pdq',
  md5: 'md5',
  photo_md5: 'md5',
  hash_md5: 'md5',
  sha256: 'sha256',
  hash_sha256: 'sha256',
};

/** Splits one CSV line (RFC 4180 quoting; no line breaks inside fields). */
function fields(line: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= line.length) return null;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += line[i++];
      }
      out.push(value.trim());
      if (i < line.length && line[i] !== ',') return null;
      i++;
    } else {
      const end = line.indexOf(',', i);
      const stop = end < 0 ? line.length : end;
      out.push(line.slice(i, stop).trim());
      i = stop + 1;
    }
  }
  return out;
}

/**
 * Reads a hash list: one hash per row, with or without a header. A header names its columns: `signal_type` and
 * `signal_str` (+ `category`, `tags`) as ThreatExchange/HMA export them, or `hash` (+ `hash_type`, `label`).
 * Without a header the first field is the hash (64 hex digits: PDQ unless `defaultType` says sha256; 32: MD5) and
 * the second, if any, its label. Any bad row fails the whole import with its line number.
 */
export function parseHashCsv(text: string, defaultType: 'pdq' | 'sha256' = 'pdq'): ImportedHash[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let header: string[] | null = null;
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first >= 0) {
    const cells = fields(lines[first]!)?.map((c) => c.toLowerCase()) ?? [];
    if (cells.includes('signal_str') || cells.includes('hash')) header = cells;
  }
  const col = (name: string) => header?.indexOf(name) ?? -1;
  const hashCol = header ? Math.max(col('signal_str'), col('hash')) : 0;
  const typeCol = header ? Math.max(col('signal_type'), col('hash_type')) : -1;
  const labelCol = header ? col('label') : 1;
  const categoryCol = header ? col('category') : -1;
  const tagsCol = header ? col('tags') : -1;
  const out: ImportedHash[] = [];
  for (let n = header ? first + 1 : 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '' || line.startsWith('#')) continue;
    const fail = (reason: string, message: string) =>
      new AppError('INVALID_PARAMETER', `Line ${n + 1}: ${message}`, { line: n + 1, reason });
    if (out.length >= MAX_IMPORT_ROWS) {
      throw fail('too_many_rows', `an import holds at most ${MAX_IMPORT_ROWS} hashes; split the file`);
    }
    const cells = fields(line);
    if (!cells) throw fail('csv', 'malformed CSV (unbalanced quotes)');
    const hash = (cells[hashCol] ?? '').toLowerCase();
    let hashType: HashType;
    if (typeCol >= 0) {
      const named = SIGNAL_TYPES[(cells[typeCol] ?? '').toLowerCase()];
      if (!named) throw fail('hash_type', `unsupported signal type "${cells[typeCol]}" (pdq, md5, sha256)`);
      hashType = named;
    } else {
      hashType = hash.length === 32 ? 'md5' : defaultType;
    }
    if (!HEX[hashType].test(hash)) {
      throw fail('hash', `"${hash.slice(0, 80)}" is not a ${hashType} hash in hex`);
    }
    let label = labelCol >= 0 ? (cells[labelCol] ?? '') : '';
    if (label === '' && categoryCol >= 0) {
      label = [cells[categoryCol], tagsCol >= 0 ? cells[tagsCol] : ''].filter((s) => s).join(' ');
    }
    if (label.length > MAX_LABEL_LENGTH)
      throw fail('label', `label longer than ${MAX_LABEL_LENGTH} characters`);
    out.push({ hashType, hash, label: label === '' ? null : label });
  }
  return out;
}
