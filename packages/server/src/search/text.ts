/**
 * The words of a text as the search index holds them, the same for every engine and language: runs of letters,
 * marks and digits (joined across an apostrophe or a dot between letters: don't, x.com), lower case, NFKC, and Latin
 * letters without their diacritics (café = cafe, Müller = muller). A run in a script written without spaces
 * (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) is split further by ICU's dictionary word segmentation (through
 * Intl.Segmenter), which is costly, so only those runs go through it. The database then only splits on the spaces
 * put between the words, so SQLite and PostgreSQL agree.
 */
// made on first use: ICU loads its word dictionaries for it (~25 ms at every start and CLI call otherwise)
let segmenter: Intl.Segmenter | null = null;
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’.][\p{L}\p{M}\p{N}]+)*/gu;
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const LATIN_MARKS = /(\p{Script=Latin})\p{Mn}+/gu;
const NOT_ASCII = /[^\x00-\x7f]/;

/** Indexed text is bounded: stored content is at most 32 KB of text, but an image reference or URL is short. */
export const MAX_INDEXED_CHARS = 64 * 1024;
/** A query's words beyond this are refused: each is a term the index must intersect. */
export const MAX_QUERY_WORDS = 16;

function normalise(text: string): string {
  if (!NOT_ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKC').toLowerCase().normalize('NFD').replace(LATIN_MARKS, '$1').normalize('NFC');
}

/** Each word of `text`, normalised, in order. */
export function searchWords(text: string): string[] {
  const words: string[] = [];
  for (const [run] of normalise(text.slice(0, MAX_INDEXED_CHARS)).matchAll(WORD)) {
    if (!UNSPACED.test(run)) {
      words.push(run);
      continue;
    }
    segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
    for (const part of segmenter.segment(run)) if (part.isWordLike) words.push(part.segment);
  }
  return words;
}

/** The text the index holds for a decision's content: its words, separated by spaces. */
export function indexedText(content: string): string {
  return searchWords(content).join(' ');
}

/**
 * What of a decision's content is searchable: the content itself, except for a multi-modal decision, whose content
 * is a JSON string of `{ text?, images, video? }`: its text and references, not the JSON's keys and punctuation.
 */
export function searchableContent(contentType: string, content: string): string {
  if (contentType !== 'multimodal' || !content.startsWith('{')) return content;
  try {
    const parts: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string') parts.push(value);
      else if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(JSON.parse(content));
    return parts.join('\n');
  } catch {
    return content;
  }
}

/** The index entry of a decision: empty when it has no stored content (doNotStore, redacted). */
export function decisionText(contentType: string, content: string): string {
  return content ? indexedText(searchableContent(contentType, content)) : '';
}
