import type { CategoryResult, Evidence } from '../types.ts';

const EVIDENCE_PATH = /^\/v1\/evidence\/[A-Za-z0-9_.-]+$/;

/**
 * Where the console loads an evidence frame from: the `/v1/evidence/{token}` path of the URL the service signed, on
 * the console's own origin. The URL names `VERDICT_PUBLIC_URL`, which need not be the address the browser uses (a
 * proxy, a port forward), and the console's CSP allows images from its own origin only; the token, not the host, is
 * what the service checks. Anything else is not evidence of this service and is never loaded: null.
 */
export function evidencePath(url: string): string | null {
  try {
    const { pathname } = new URL(url, location.href);
    return EVIDENCE_PATH.test(pathname) ? pathname : null;
  } catch {
    return null;
  }
}

/** Whether a frame's evidence link has run out (the service removes the frame then). */
export function isExpired(evidence: Evidence, now = Date.now()): boolean {
  const at = Date.parse(evidence.expiresAt);
  return Number.isFinite(at) && at <= now;
}

/** A position in a video: `2.0 s`, or `1:02.5` from a minute on. */
export function videoTime(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds - minutes * 60;
  return `${minutes}:${rest.toFixed(1).padStart(4, '0')}`;
}

/**
 * A frame's categories with the decision's thresholds beside them (frame results carry only category, score and
 * triggered; the policy's thresholds are on the decision).
 */
export function withThresholds(frame: CategoryResult[], decision: CategoryResult[]): CategoryResult[] {
  const thresholds = new Map(decision.map((c) => [c.category, c.threshold] as const));
  return frame.map((c) => {
    const threshold = c.threshold ?? thresholds.get(c.category);
    return threshold === undefined ? c : { ...c, threshold };
  });
}

/** `1.2 MB`, `640 KB`, `812 B`. */
export function byteSize(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1000) return `${Math.round(bytes / 1000)} KB`;
  return `${bytes} B`;
}
