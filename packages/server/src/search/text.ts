/**
 * The words of a text as the search index holds them, the same for every engine and language: Unicode word
 * segmentation (ICU's, via Intl.Segmenter, which splits Japanese and other scripts written without spaces by
 * dictionary), NFKC, lower case, and Latin letters without their diacritics (café = cafe, Müller = muller).
 * The database then only splits on the spaces put between the words, so SQLite and PostgreSQL agree.
 */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
const LATIN_MARKS = /(\p{Script=Latin})\p{Mn}+/gu;

/** Indexed text is bounded: stored content is at most 32 KB of text, but an image reference or URL is short. */
export const MAX_INDEXED_CHARS = 64 * 1024;
/** A query's words beyond this are refused: each is a term the index must intersect. */
export const MAX_QUERY_WORDS = 16;

function normalise(word: string): string {
  return word.normalize('NFKC').toLowerCase().normalize('NFD').replace(LATIN_MARKS, '$1').normalize('NFC');
}

/** Each word of `text`, normalised, in order. */
export function searchWords(text: string): string[] {
  const words: string[] = [];
  for (const part of segmenter.segment(text.slice(0, MAX_INDEXED_CHARS))) {
    if (!part.isWordLike) continue;
    const word = normalise(part.segment);
    if (word) words.push(word);
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
