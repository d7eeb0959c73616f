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
  if (body && typeof body === 'object' && 'content' in body) body.content = '';
  emptyHighlightText(copy.categories);
  emptyHighlightText(copy.results);
  emptyHighlightText(copy.replayData);
  emptyHighlightText(copy.ocr, true);
  return copy;
}
