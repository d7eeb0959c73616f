import { Tokenizer } from '@verdict/text-model';
import { RE2JS } from 're2js';
import { AppError } from '../domain/errors.ts';
import { MAX_ENTRY_LENGTH, MAX_PHRASE_TOKENS, MAX_REGEX_LENGTH } from './limits.ts';
import type { EntryType } from './types.ts';

/**
 * Lists normalise text the way the text model reads it, with its own tokenizer: one language setting for entries and
 * texts alike (so both sides of a match are normalised the same way, whatever the check's language).
 */
export const LIST_LANG = 'en';
export const LIST_LANG_BIT = 1;
/** A list tokenizer's chunk cache: 2^10 entries (64 KB) instead of the model's 4 MB. */
export const LIST_CHUNK_BITS = 10;

/** Entries are normalised without a lexicon: what the text would read as with no list-specific decoding. */
const plain = new Tokenizer(null, LIST_CHUNK_BITS);

/** The normalised tokens of a term or phrase (lower case, homoglyphs and interior leet decoded, spacing joined). */
export function normaliseTerm(text: string): string[] {
  const n = plain.run(text, LIST_LANG, LIST_LANG_BIT);
  const tokens: string[] = [];
  for (let t = 0; t < n; t++) tokens.push(plain.tokenText(t));
  return tokens;
}

/** A regex entry, compiled for RE2JS (linear time: no backtracking, so no catastrophic patterns). */
export function compileRegex(pattern: string): RE2JS {
  return RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
}

export interface NormalisedEntry {
  type: EntryType;
  value: string;
  /** what makes two entries of a list the same: the normalised tokens joined by spaces, or `re:` and the pattern */
  normalised: string;
}

/**
 * Validates one entry as given to the API: a string (a term or phrase) or `{ term }` or `{ regex }`. Errors are 422
 * INVALID_PARAMETER naming the entry (`field`) and why (`reason`).
 */
export function normaliseEntry(raw: unknown, field: string): NormalisedEntry {
  let type: EntryType = 'term';
  let value: unknown = raw;
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const object = raw as Record<string, unknown>;
    const keys = Object.keys(object);
    if (keys.length !== 1 || (keys[0] !== 'term' && keys[0] !== 'regex')) {
      throw invalid(field, 'An entry is a string, { "term": … } or { "regex": … }', 'bad_entry');
    }
    type = keys[0] === 'regex' ? 'regex' : 'term';
    value = object[keys[0]!];
  }
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(field, 'An entry must be a non-empty string', 'empty');
  }
  if (type === 'regex') {
    if (value.length > MAX_REGEX_LENGTH) {
      throw invalid(field, `A regex entry has at most ${MAX_REGEX_LENGTH} characters`, 'too_long', {
        max: MAX_REGEX_LENGTH,
      });
    }
    try {
      compileRegex(value);
    } catch (error) {
      throw invalid(field, `Not a valid RE2 regular expression: ${(error as Error).message}`, 'bad_regex');
    }
    return { type, value, normalised: `re:${value}` };
  }
  const term = value.trim();
  if (term.length > MAX_ENTRY_LENGTH) {
    throw invalid(field, `A term has at most ${MAX_ENTRY_LENGTH} characters`, 'too_long', {
      max: MAX_ENTRY_LENGTH,
    });
  }
  const tokens = normaliseTerm(term);
  if (tokens.length === 0 || tokens.includes('@')) {
    throw invalid(field, 'The term has no letters, digits or emoji to match', 'nothing_to_match');
  }
  if (tokens.length > MAX_PHRASE_TOKENS) {
    throw invalid(field, `A phrase has at most ${MAX_PHRASE_TOKENS} words`, 'too_many_words', {
      max: MAX_PHRASE_TOKENS,
    });
  }
  return { type, value: term, normalised: tokens.join(' ') };
}

function invalid(field: string, message: string, reason: string, extra: Record<string, unknown> = {}) {
  return new AppError('INVALID_PARAMETER', `${field}: ${message}`, { field, reason, ...extra });
}
