import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** Minimal RFC 4180 reader (quoted fields, doubled quotes, newlines inside quotes); the datasets are all UTF-8. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\n' || c === '\r') {
      row.push(field);
      field = '';
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

export function readGz(path: string): string {
  return gunzipSync(readFileSync(path)).toString('utf8');
}

/** Reads a gzipped CSV with a header row into objects. */
export function readCsvGz(path: string): Record<string, string>[] {
  const rows = parseCsv(readGz(path));
  const header = rows[0] ?? [];
  const out: Record<string, string>[] = [];
  for (let r = 1; r < rows.length; r++) {
    const row = rows[r]!;
    const o: Record<string, string> = {};
    for (let c = 0; c < header.length; c++) o[header[c]!] = row[c] ?? '';
    out.push(o);
  }
  return out;
}

/** Parses a Python list-of-strings literal such as "['a', \"b's\"]". */
export function parsePyList(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    const q = s[i];
    if (q !== "'" && q !== '"') {
      i++;
      continue;
    }
    i++;
    let cur = '';
    while (i < n && s[i] !== q) {
      if (s[i] === '\\' && i + 1 < n) {
        const nx = s[i + 1]!;
        cur += nx === 'n' ? '\n' : nx === 't' ? '\t' : nx;
        i += 2;
      } else cur += s[i++];
    }
    i++;
    out.push(cur);
  }
  return out;
}

/** Subject + plain-text body of a raw RFC 822 message (headers dropped, simple MIME/QP/base64/HTML handling). */
export function emailText(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = split >= 0 ? raw.slice(0, split) : '';
  let body = split >= 0 ? raw.slice(split).trim() : raw;
  const subject = /^Subject:\s*(.*)$/im.exec(headers)?.[1] ?? '';
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
  if (boundary) {
    const parts = body.split(`--${boundary}`);
    const texts: string[] = [];
    for (const p of parts) {
      const ps = p.search(/\r?\n\r?\n/);
      if (ps < 0) continue;
      const ph = p.slice(0, ps);
      if (!/content-type:\s*text\//i.test(ph) && /content-type:/i.test(ph)) continue;
      texts.push(decodePart(ph, p.slice(ps).trim()));
    }
    body = texts.join('\n');
  } else body = decodePart(headers, body);
  body = body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n');
  return `${subject}\n${body}`.trim();
}

function decodePart(headers: string, body: string): string {
  if (/content-transfer-encoding:\s*base64/i.test(headers)) {
    try {
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    } catch {
      return body;
    }
  }
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers)) {
    return body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  }
  return body;
}
