import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import type { VideoRecord } from '../storage/repositories/videos.ts';
import type { FrameResult } from './video-analysis.ts';

const round1 = (n: number) => Math.round(n * 10) / 10;

/** `GET /v1/video/status/{id}` (interface §2.8; decisions §8 adds `failed` with `error`). */
export function videoStatusView(video: VideoRecord, secondsPerFrame: number) {
  const completed = video.status === 'completed';
  const processed = completed ? video.framesProcessed : Math.min(video.framesProcessed, video.framesTotal);
  const total = completed ? processed : video.framesTotal;
  return {
    decisionId: video.id,
    status: video.status,
    progress: {
      framesProcessed: processed,
      framesTotal: total,
      percentComplete: completed ? 100 : total === 0 ? 0 : round1((100 * processed) / total),
    },
    estimatedCompletion: estimatedCompletion(video, secondsPerFrame),
    createdAt: video.createdAt,
    ...(video.completedAt && { completedAt: video.completedAt }),
    ...(video.error && { error: video.error }),
  };
}

/**
 * From the frame rate measured so far in this analysis; before its first frame, from the estimate given at
 * submission (or the recent rate, if that estimate has passed). Never in the past while processing.
 */
function estimatedCompletion(video: VideoRecord, secondsPerFrame: number): string {
  if (video.completedAt) return video.completedAt;
  const now = Date.now();
  const remaining = Math.max(0, video.framesTotal - video.framesProcessed);
  if (video.startedAt && video.framesProcessed > 0) {
    const perFrame = (Date.parse(video.updatedAt) - Date.parse(video.startedAt)) / video.framesProcessed;
    return new Date(Math.max(now, Date.parse(video.updatedAt) + perFrame * remaining)).toISOString();
  }
  const planned = Date.parse(video.createdAt) + video.estimatedSeconds * 1000;
  return new Date(Math.max(planned, now + remaining * secondsPerFrame * 1000)).toISOString();
}

/** The final video result of interface §2.8, from the stored decision. */
export function videoResultView(d: DecisionRecord) {
  const frames = (d.results ?? []) as FrameResult[];
  return {
    decisionId: d.decisionId,
    status: 'completed' as const,
    safe: d.safe,
    flagged: d.flagged,
    action: d.action,
    categories: d.categories.map(({ action: _action, ...category }) => category),
    results: frames,
    totalLatency: d.latency,
    totalCost: d.cost,
    framesProcessed: frames.length,
    policyId: d.policyId,
    policyVersion: d.policyVersion,
    provider: d.provider,
    contentType: 'video' as const,
    content: d.content,
    timestamp: d.timestamp,
  };
}
