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

/**
 * The final video result of interface §2.8, from the stored decision. `framesPlanned`: the frames the video was to
 * give by its duration; `partial` when it gave fewer (a file that breaks off): the result judges only the frames
 * that decoded. One frame short is not partial: ffmpeg rounds the last interval, the plan rounds up.
 */
export function videoResultView(d: DecisionRecord, framesPlanned: number) {
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
    framesPlanned,
    partial: frames.length < framesPlanned - 1,
    policyId: d.policyId,
    policyVersion: d.policyVersion,
    provider: d.provider,
    contentType: 'video' as const,
    content: d.content,
    timestamp: d.timestamp,
    ...(d.bankMatch && { bankMatch: d.bankMatch }),
  };
}
