import { useEffect, useRef, useState } from 'preact/hooks';
import { formatTime, label } from '../format.ts';
import { ScoreTable } from '../scores.tsx';
import type { CategoryResult, FrameResult } from '../types.ts';
import { BankMatchNote, OcrText } from './image.tsx';
import { evidencePath, isExpired, videoTime, withThresholds } from './links.ts';

/**
 * A video's sampled frames as evidence: a strip of every frame over time (the triggered ones marked), and a grid of
 * the triggered frames, each a thumbnail of its evidence JPEG with its time and the categories it triggered, opening
 * larger with its full scores.
 */

function frameName(f: FrameResult): string {
  return `Frame ${f.frameNumber} at ${videoTime(f.timestamp)}`;
}

/** The evidence JPEG of a frame, or why there is none to show. */
function FrameImage(props: { frame: FrameResult; large?: boolean }) {
  const [failed, setFailed] = useState(false);
  const e = props.frame.evidence;
  const path = e ? evidencePath(e.url) : null;
  let why: string | null = null;
  if (!e) why = 'No frame kept (only checks submitted to /v1/video keep evidence)';
  else if (isExpired(e)) why = `Evidence expired ${formatTime(e.expiresAt)}`;
  else if (!path) why = 'Evidence not served by this service: not loaded';
  else if (failed) why = 'Evidence frame no longer available';
  if (why || !path)
    return (
      <span class={`frame-missing${props.large ? ' large' : ''}`} role="img" aria-label={why ?? ''}>
        {why}
      </span>
    );
  return (
    <img
      src={path}
      alt={`${frameName(props.frame)}, evidence`}
      loading={props.large ? 'eager' : 'lazy'}
      onError={() => setFailed(true)}
    />
  );
}

function TriggeredList(props: { categories: CategoryResult[] }) {
  const triggered = props.categories.filter((c) => c.triggered);
  if (triggered.length === 0) return null;
  return (
    <ul class="frame-categories">
      {triggered.map((c) => (
        <li key={c.category}>
          <strong>{label(c.category)}</strong> {c.score.toFixed(3)}
          {c.threshold !== undefined && <span class="muted"> ≥ {c.threshold.toFixed(2)}</span>}
        </li>
      ))}
    </ul>
  );
}

/** One frame, large, with every score against its threshold, the text read in it and any bank match. */
function FrameDialog(props: {
  frame: FrameResult | null;
  categories: CategoryResult[];
  onMove: (step: -1 | 1) => void;
  onClose: () => void;
  hasPrevious: boolean;
  hasNext: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const f = props.frame;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (f && !dialog.open) dialog.showModal();
    if (!f && dialog.open) dialog.close();
  }, [f]);
  return (
    <dialog ref={ref} class="dialog wide" aria-labelledby="frame-title" onCancel={props.onClose}>
      {f && (
        <>
          <h2 id="frame-title">{frameName(f)}</h2>
          <div class="frame-detail">
            <div class="frame-large">
              <FrameImage key={f.frameNumber} frame={f} large />
              {f.evidence && (
                <p class="muted small">Evidence link valid until {formatTime(f.evidence.expiresAt)}.</p>
              )}
            </div>
            <div>
              {f.bankMatch && <BankMatchNote match={f.bankMatch} />}
              <ScoreTable categories={props.categories} />
              {f.ocr && <OcrText ocr={f.ocr} categories={props.categories} only={null} source="frame" />}
            </div>
          </div>
          <div class="dialog-actions">
            <button
              type="button"
              class="button"
              disabled={!props.hasPrevious}
              onClick={() => props.onMove(-1)}
            >
              Previous frame
            </button>
            <button type="button" class="button" disabled={!props.hasNext} onClick={() => props.onMove(1)}>
              Next frame
            </button>
            <button type="button" class="button primary" onClick={props.onClose}>
              Close
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}

export function FrameEvidence(props: { frames: FrameResult[]; categories: CategoryResult[] }) {
  const [open, setOpen] = useState<number | null>(null);
  const frames = props.frames;
  const triggered = frames.filter((f) => f.flagged);
  const scored = (f: FrameResult) => withThresholds(f.categories, props.categories);
  const current = open === null ? null : (triggered[open] ?? null);
  return (
    <div class="frame-evidence">
      <p class="muted">
        {triggered.length} of {frames.length} sampled {frames.length === 1 ? 'frame' : 'frames'} triggered.
      </p>
      {frames.length > 1 && (
        <ol class="frame-strip" aria-label="Sampled frames over time">
          {frames.map((f) => (
            <li
              key={f.frameNumber}
              class={f.flagged ? 'hit' : undefined}
              title={`${frameName(f)}${f.flagged ? ': triggered' : ''}`}
            >
              <span class="sr-only">
                {frameName(f)}
                {f.flagged ? ', triggered' : ''}
              </span>
            </li>
          ))}
        </ol>
      )}
      {triggered.length > 0 && (
        <ul class="frames" aria-label="Triggered frames">
          {triggered.map((f, i) => (
            <li key={f.frameNumber} class="frame">
              <button
                type="button"
                class="frame-open"
                aria-label={`Open ${frameName(f).toLowerCase()}`}
                onClick={() => setOpen(i)}
              >
                <FrameImage frame={f} />
              </button>
              <span class="frame-caption">
                <strong>Frame {f.frameNumber}</strong> · {videoTime(f.timestamp)}
              </span>
              <TriggeredList categories={scored(f)} />
            </li>
          ))}
        </ul>
      )}
      <FrameDialog
        frame={current}
        categories={current ? scored(current) : []}
        hasPrevious={open !== null && open > 0}
        hasNext={open !== null && open < triggered.length - 1}
        onMove={(step) => setOpen((at) => (at === null ? null : at + step))}
        onClose={() => setOpen(null)}
      />
    </div>
  );
}
