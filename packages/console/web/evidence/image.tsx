import { ActionBadge, CopyButton } from '../components.tsx';
import { percent } from '../format.ts';
import { HighlightedText } from '../highlights.tsx';
import type { BankMatch, CategoryResult, Decision, MediaRef, OcrResult } from '../types.ts';
import { byteSize } from './links.ts';

/**
 * An image decision's evidence. The service keeps no image bytes (an inline image is kept as its SHA-256, size and
 * perceptual hash; an image sent by URL as that URL), so the console cannot show the picture itself: it shows what
 * the service kept — the reference, the fingerprints, where text was read in the image and what it said (with the
 * spans that triggered), and the bank item that matched — and says why the picture is not there. An image URL is
 * never loaded: the console's CSP allows only its own origin, and loading it would tell that host who looks.
 */

function isUrl(ref: string): boolean {
  return /^https?:\/\//i.test(ref);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'that host';
  }
}

/** Why the picture is not shown, for the image's kind of reference. */
function WhyNoImage(props: { reference: string; stored: boolean }) {
  if (!props.stored)
    return (
      <p class="notice info" role="note">
        This decision's content was not stored (<code>doNotStore</code>, or removed by content retention), so
        neither the image nor its address is kept.
      </p>
    );
  if (isUrl(props.reference))
    return (
      <div class="notice info" role="note">
        <p>
          Checked by URL. The console does not load it: it shows only what this service serves itself, and
          opening the address from here would tell <strong>{hostOf(props.reference)}</strong> who is looking.
        </p>
        <div class="secret-row">
          <code class="secret-value image-url">{props.reference}</code>
          <CopyButton text={props.reference} label="Copy URL" />
        </div>
      </div>
    );
  return (
    <p class="notice info" role="note">
      Sent inline. The service never keeps inline image bytes, only the fingerprints below, so there is no
      picture to show; find it by its SHA-256 where it came from.
    </p>
  );
}

/** The image's outline at its proportions, with the boxes where text was read, numbered as the list below. */
function RegionMap(props: { media: MediaRef; ocr: OcrResult | undefined }) {
  const { width, height } = props.media;
  const regions = props.ocr?.regions ?? [];
  return (
    <figure class="region-map">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`Outline of the ${width}×${height} image${regions.length ? ` with ${regions.length} text regions` : ''}`}
      >
        <rect class="region-frame" x="0" y="0" width={width} height={height} />
        {regions.map((r, i) => (
          <g key={i}>
            <rect class="region" x={r.box.x} y={r.box.y} width={r.box.width} height={r.box.height} />
            <text class="region-number" x={r.box.x} y={r.box.y} font-size={Math.max(height, width) / 24}>
              {i + 1}
            </text>
          </g>
        ))}
      </svg>
      <figcaption class="muted small">
        {width}×{height} {props.media.format.toUpperCase()}, image not stored
        {regions.length > 0 ? ': boxes mark where text was read' : ''}
      </figcaption>
    </figure>
  );
}

/** The text read in an image, with the spans its categories flagged, and its regions. */
export function OcrText(props: {
  ocr: OcrResult;
  categories: CategoryResult[];
  only: string | null;
  colors?: Map<string, number>;
  /** What the text was read in: the image, or a video frame. */
  source?: 'image' | 'frame';
}) {
  const o = props.ocr;
  const colors = props.colors ?? new Map(props.categories.map((c, i) => [c.category, i % 6] as const));
  const stored = o.text !== '' || o.regions.every((r) => r.text !== '');
  return (
    <div class="ocr">
      <h3>
        Text read in the {props.source ?? 'image'}{' '}
        <span class="muted small">
          ({o.language}, confidence {percent(o.confidence, 0)})
        </span>
      </h3>
      {!stored ? (
        <p class="muted">The text read was not stored with this decision.</p>
      ) : o.text.trim() === '' ? (
        <p class="muted">No text was read.</p>
      ) : (
        <HighlightedText content={o.text} categories={props.categories} only={props.only} colors={colors} />
      )}
      {o.regions.length > 0 && stored && (
        <ol class="ocr-regions">
          {o.regions.map((r, i) => (
            <li key={i}>
              {r.text} <span class="muted small">({percent(r.confidence, 0)})</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function BankMatchNote(props: { match: BankMatch }) {
  const m = props.match;
  return (
    <p class="notice info" role="note">
      Matched item <strong>{m.label ?? m.itemId}</strong> of the bank <strong>{m.bank}</strong> by{' '}
      {m.matchedOn}
      {m.matchedOn === 'pdq' ? ` (distance ${m.distance} of at most ${m.maxDistance})` : ''}: no model ran,
      the bank's action applies: <ActionBadge action={m.action} />
    </p>
  );
}

function Fingerprints(props: { media: MediaRef }) {
  const m = props.media;
  return (
    <dl class="facts compact">
      <div>
        <dt>Format</dt>
        <dd>
          {m.format.toUpperCase()}, {m.width}×{m.height}, {byteSize(m.bytes)}
        </dd>
      </div>
      <div>
        <dt>SHA-256</dt>
        <dd>
          <code class="small break">{m.sha256}</code>
        </dd>
      </div>
      <div>
        <dt>Perceptual hash</dt>
        <dd>
          <code class="small">{m.phash}</code>
        </dd>
      </div>
    </dl>
  );
}

/** The content of an image decision: the reference, the outline with its text regions, the text read, a bank match. */
export function ImageEvidence(props: {
  decision: Decision;
  only: string | null;
  colors: Map<string, number>;
}) {
  const d = props.decision;
  const media = d.media ?? [];
  const stored = d.content !== '';
  return (
    <div class="image-evidence">
      <WhyNoImage reference={media[0]?.ref ?? d.content} stored={stored} />
      {media.map((m) => (
        <div key={m.sha256} class="image-facts">
          <RegionMap media={m} ocr={d.ocr} />
          <Fingerprints media={m} />
        </div>
      ))}
      {d.bankMatch && <BankMatchNote match={d.bankMatch} />}
      {d.ocr && <OcrText ocr={d.ocr} categories={d.categories} only={props.only} colors={props.colors} />}
    </div>
  );
}
