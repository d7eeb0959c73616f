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
 * text and no text read in images, in the record, its stored request, its results and replay data; no image or video
 * address either (`media[].ref`, `contentRef`, a multi-modal request's `text`, `images` and `video`): an image is
 * left as `sha256:<hex>`, the form inline images always have. A copy: the caller's answer keeps them.
 */
export function withoutContent(d: DecisionRecord): DecisionRecord {
  const copy = structuredClone(d);
  copy.content = '';
  const body = copy.request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object') {
    // the submitted content under each route's name for it: checks and batch items, multi-modal items, videos
    for (const field of ['content', 'videoUrl'] as const)
      if (typeof body[field] === 'string') body[field] = '';
  }
  withoutAddresses(copy);
  emptyHighlightText(copy.categories);
  emptyHighlightText(copy.results);
  emptyHighlightText(copy.replayData);
  emptyHighlightText(copy.ocr, true);
  return copy;
}

/** The parts of a stored decision that name where its images and video came from. */
export interface Addressed {
  request: { body?: unknown };
  media?: { ref: string; sha256: string }[] | null;
  results?: unknown[] | null;
  bankMatch?: { contentRef: string } | null;
}

/**
 * Removes the addresses of a decision's images and video, in place: an image's or video's URL is its content. An
 * image keeps only its digest form (`sha256:<hex>`, as an inline image always has), a video nothing; a multi-modal
 * request's `text`, `images` and `video` go too. Applying it twice changes nothing.
 */
export function withoutAddresses(d: Addressed): void {
  const byRef = new Map((d.media ?? []).map((m) => [m.ref, `sha256:${m.sha256}`] as const));
  const reference = (ref: unknown): string => {
    if (typeof ref !== 'string') return '';
    return /^(sha256|frame):/.test(ref) ? ref : (byRef.get(ref) ?? '');
  };
  const body = d.request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object') {
    if (typeof body.text === 'string') body.text = '';
    if (typeof body.video === 'string') body.video = '';
    if (Array.isArray(body.images)) body.images = body.images.map(reference);
  }
  for (const m of d.media ?? []) m.ref = reference(m.ref);
  // bank matches and multi-modal items (of the decision, its items and a video's frames) name the image they judged
  mapContentRefs(d.bankMatch, reference);
  mapContentRefs(d.results, reference);
}

/** Replaces every `contentRef` string found in `value` by `reference(contentRef)`, in place. */
function mapContentRefs(value: unknown, reference: (ref: unknown) => string): void {
  if (Array.isArray(value)) {
    for (const item of value) mapContentRefs(item, reference);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  if ('contentRef' in record) record.contentRef = reference(record.contentRef);
  for (const child of Object.values(record)) mapContentRefs(child, reference);
}
