import type { DecisionRecord } from '../storage/repositories/decisions.ts';

/**
 * Empties the `text` of every highlight (objects in a `highlights` array or map) and of every text read in an image
 * (an `ocr` object and its regions: the image's words are its content) found in `value`, in place.
 */
export function emptyHighlightText(value: unknown, inHighlights = false): void {
  if (Array.isArray(value)) {
    for (const item of value) emptyHighlightText(item, inHighlights);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  if (inHighlights && typeof record.text === 'string') record.text = '';
  for (const [key, child] of Object.entries(record))
    emptyHighlightText(child, inHighlights || key === 'highlights' || key === 'ocr');
}

/**
 * The record as stored when its content must not be kept (`doNotStore`, or retention): no content, no highlight
 * text and no text read in images, in the record, its stored request, its results and replay data. A copy: the caller's answer keeps them.
 */
export function withoutContent(d: DecisionRecord): DecisionRecord {
  const copy = structuredClone(d);
  copy.content = '';
  const body = copy.request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object') {
    // the submitted content under each route's name for it: checks and batch items, multi-modal items, videos
    for (const field of CONTENT_FIELDS) {
      if (typeof body[field] === 'string') body[field] = '';
      else if (Array.isArray(body[field])) body[field] = [];
    }
  }
  // an image's or a video's content is its URL (or the SHA-256 of its bytes); fingerprints and scores stay
  for (const media of copy.media ?? []) media.ref = '';
  // multi-modal items and bank matches (of the decision, its items and its frames) name the image they judged
  emptyContentRefs(copy.results);
  emptyContentRefs(copy.bankMatch);
  emptyHighlightText(copy.categories);
  emptyHighlightText(copy.results);
  emptyHighlightText(copy.replayData);
  emptyHighlightText(copy.ocr, true);
  return copy;
}

/** Empties every `contentRef` string found in `value`, in place. */
function emptyContentRefs(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) emptyContentRefs(item);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  if (typeof record.contentRef === 'string') record.contentRef = '';
  for (const child of Object.values(record)) emptyContentRefs(child);
}

const CONTENT_FIELDS = ['content', 'text', 'images', 'video', 'videoUrl'] as const;
