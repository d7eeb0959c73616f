/**
 * Team-authored text: training sentences and templates (training/authored/<lang>.jsonl, <lang>.templates.json) and
 * the functional test suite (suite/<lang>.jsonl). Both follow training/authored/GUIDELINES.md; they are written by
 * different authors from different templates, and any training text whose normalised form equals a suite text is
 * dropped here, so the suite never reaches training or calibration.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUPPORTED_LANGUAGES, type SupportedLanguage, TEXT_CATEGORIES } from '../src/constants.ts';
import { hashString, mulberry32 } from '../src/hash.ts';

/**
 * training/authored/, or VERDICT_AUTHORED_DIR (for trials: a copy with files added or removed, so that a training run
 * can read other data without touching the shipped directory).
 */
export const AUTHORED_DIR = process.env.VERDICT_AUTHORED_DIR
  ? `${resolve(process.env.VERDICT_AUTHORED_DIR)}/`
  : fileURLToPath(new URL('./authored/', import.meta.url));
export const SUITE_DIR = fileURLToPath(new URL('../suite/', import.meta.url));

/** Categories authored data may name (spam is never authored: it stays unknown for these texts). */
const AUTHORED_CATEGORIES = TEXT_CATEGORIES.filter((c) => c !== 'spam');

export interface AuthoredItem {
  text: string;
  lang: SupportedLanguage;
  labels: string[];
  phenomenon: string;
  target?: string;
  /** 'hand' for hand-written lines, 'template' for template expansions */
  kind: 'hand' | 'template';
  /** template id (lang:index) for expansions: a template's expansions always share one split */
  template?: string;
}

interface TemplateFile {
  /**
   * Expansions kept per template of this file (default MAX_EXPANSIONS): a large batch of one kind (v9b, hateful
   * predicates) can be trained on at a smaller share without dropping its variety of templates.
   */
  maxExpansions?: number;
  slots: Record<string, string[]>;
  templates: { text: string; labels: string[]; phenomenon?: string }[];
}

/** Expansions kept per template (deterministic sample of the slot combinations). */
export const MAX_EXPANSIONS = 24;

function languageOf(file: string): SupportedLanguage | null {
  const code = file.split('.')[0]!;
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(code) ? (code as SupportedLanguage) : null;
}

function checkLabels(labels: unknown, where: string): string[] {
  if (!Array.isArray(labels)) throw new Error(`${where}: labels must be an array`);
  for (const l of labels)
    if (!(AUTHORED_CATEGORIES as readonly string[]).includes(l))
      throw new Error(`${where}: unknown label ${l}`);
  return labels as string[];
}

function readJsonl(path: string, lang: SupportedLanguage): AuthoredItem[] {
  const out: AuthoredItem[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let o: { text?: unknown; labels?: unknown; phenomenon?: unknown; target?: unknown };
      try {
        o = JSON.parse(line);
      } catch {
        // a half-written last line of a file still being appended to is skipped, anything else is an error
        return;
      }
      if (typeof o.text !== 'string' || o.text.trim() === '') return;
      out.push({
        text: o.text,
        lang,
        labels: checkLabels(o.labels, `${path}:${i + 1}`),
        phenomenon: typeof o.phenomenon === 'string' ? o.phenomenon : 'unspecified',
        target: typeof o.target === 'string' ? o.target : undefined,
        kind: 'hand',
      });
    });
  return out;
}

/** Fills a template's slots from a seeded PRNG; returns up to `max` (MAX_EXPANSIONS) distinct texts. */
export function expandTemplate(
  text: string,
  slots: Record<string, string[]>,
  seed: number,
  max = MAX_EXPANSIONS,
): string[] {
  const names = [...text.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return [text];
  for (const n of names) if (!slots[n] || slots[n].length === 0) return [];
  let combos = 1;
  for (const n of new Set(names)) combos *= slots[n]!.length;
  const want = Math.min(max, combos);
  const rnd = mulberry32(seed);
  const out = new Set<string>();
  for (let tries = 0; out.size < want && tries < want * 8; tries++) {
    const pick = new Map<string, string>();
    for (const n of new Set(names)) pick.set(n, slots[n]![Math.floor(rnd() * slots[n]!.length)]!);
    out.add(text.replace(/\{([A-Za-z0-9_]+)\}/g, (_, n: string) => pick.get(n)!));
  }
  return [...out];
}

function readTemplates(path: string, lang: SupportedLanguage, fileName: string): AuthoredItem[] {
  let file: TemplateFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as TemplateFile;
  } catch {
    return []; // being written
  }
  const out: AuthoredItem[] = [];
  (file.templates ?? []).forEach((t, i) => {
    if (typeof t?.text !== 'string') return;
    const labels = checkLabels(t.labels, `${path} template ${i}`);
    // `<lang>.templates.json` keeps the ids `lang:i` (splits and seeds of its expansions stay put); further files of a
    // language (`<lang>.v3.templates.json`) are named by their stem so that their ids never collide with those
    const stem = fileName.slice(0, -'.templates.json'.length);
    const id = stem === lang ? `${lang}:${i}` : `${stem}:${i}`;
    for (const text of expandTemplate(t.text, file.slots ?? {}, hashString(id), file.maxExpansions))
      out.push({
        text,
        lang,
        labels,
        phenomenon: t.phenomenon ?? 'unspecified',
        kind: 'template',
        template: id,
      });
  });
  return out;
}

/** The files of `dir` named after a supported language (`<lang>.…`), sorted: [language, path, file name]. */
function languageFiles(dir: string): [SupportedLanguage, string, string][] {
  if (!existsSync(dir)) return [];
  const out: [SupportedLanguage, string, string][] = [];
  for (const f of readdirSync(dir).sort()) {
    const lang = languageOf(f);
    if (lang !== null) out.push([lang, join(dir, f), f]);
  }
  return out;
}

/** Every authored training item (hand-written and template expansions), in a fixed order. */
export function loadAuthoredTraining(dir = AUTHORED_DIR): AuthoredItem[] {
  return languageFiles(dir).flatMap(([lang, path, f]) =>
    f.endsWith('.jsonl')
      ? readJsonl(path, lang)
      : f.endsWith('.templates.json')
        ? readTemplates(path, lang, f)
        : [],
  );
}

/** The functional test suite (evaluation only). */
export function loadSuite(dir = SUITE_DIR): AuthoredItem[] {
  return languageFiles(dir).flatMap(([lang, path, f]) => (f.endsWith('.jsonl') ? readJsonl(path, lang) : []));
}

/** Normalised form used to keep suite texts out of training (case, punctuation and spacing ignored). */
export function authoredKey(t: string): string {
  return t
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Label vector in TEXT_CATEGORIES order: listed → 1, other authored categories → 0, spam unknown (-1). */
export function labelVector(labels: string[]): Int8Array {
  const v = new Int8Array(TEXT_CATEGORIES.length);
  TEXT_CATEGORIES.forEach((c, k) => {
    v[k] = c === 'spam' ? -1 : labels.includes(c) ? 1 : 0;
  });
  return v;
}
