import { performance } from 'node:perf_hooks';
import type { BankScreen } from '../banks/matcher.ts';
import { applyBankMatch } from '../banks/outcome.ts';
import type { BankMatch } from '../banks/types.ts';
import { type ExtractedFrame, extractFrames, FrameExtractionError } from '../media/video/frames.ts';
import { pipelineFrames } from '../media/video/pipeline.ts';
import type { OcrResult } from '../ocr/engine.ts';
import { type ImageTextReader, judgeImageText, mergeWithText } from '../ocr/judge.ts';
import type { Provider } from '../providers/provider.ts';
import { applyPolicy, type PolicyOutcome } from './engine.ts';
import { AppError } from './errors.ts';
import type { Policy } from './policies/policy.ts';
import { ACTION_SEVERITY, type Action, type CategoryName } from './taxonomy.ts';

/** One sampled frame's verdict (interface §2.8): categories show `category`, `score` and `triggered` only. */
export interface FrameResult {
  /** 0-based position among the sampled frames; `timestamp` = frameNumber × frameInterval. */
  frameNumber: number;
  /** Seconds from the start of the video. */
  timestamp: number;
  safe: boolean;
  flagged: boolean;
  action: Action;
  categories: Array<{ category: CategoryName; score: number; triggered: boolean }>;
  evidence?: { url: string; expiresAt: string };
  /** The policy bank that decided this frame before any model ran (issue 20). */
  bankMatch?: BankMatch;
  /** Text read in the frame and judged by the text model. */
  ocr?: OcrResult;
}

/** A frame's result as shown (interface §2.8: categories with `category`, `score` and `triggered` only). */
export function frameResult(frameNumber: number, timestamp: number, outcome: PolicyOutcome): FrameResult {
  return {
    frameNumber,
    timestamp,
    safe: outcome.safe,
    flagged: outcome.flagged,
    action: outcome.action,
    categories: outcome.categories.map((c) => ({
      category: c.category,
      score: c.score,
      triggered: c.triggered,
    })),
  };
}

export interface VideoAnalysis {
  frames: FrameResult[];
  /** Most severe over the frames: per category the highest score, so a category triggers iff it does in a frame. */
  outcome: PolicyOutcome;
  scores: Partial<Record<CategoryName, number>>;
  evaluated: CategoryName[];
  provider: string;
  modelVersion: string;
  cost: number;
  latencyMs: number;
  /** The most severe bank match among the frames; the outcome already includes it. */
  bankMatch: BankMatch | null;
}

export interface AnalyzeOptions {
  intervalSeconds: number;
  maxFrames: number;
  maxDurationSeconds: number;
  timeoutMs: number;
  /** Frames classified at once while the next ones are extracted. */
  maxInFlight: number;
  signal?: AbortSignal;
  /** Called for each triggered frame; returns its evidence link. */
  evidence?(frame: ExtractedFrame): Promise<{ url: string; expiresAt: string }>;
  /** Called after each frame with the number done so far. */
  onProgress?(framesProcessed: number): void;
  /** The policy's hash banks: a frame matching one is decided by it and not sent to the model. */
  banks?: BankScreen | null;
  /** Reads text in frames and judges it with the text model; null leaves text categories unjudged. */
  textReader?: ImageTextReader | null;
}

/**
 * The frame pipeline: ffmpeg samples frames from a local file and streams them as JPEGs straight into the image
 * provider (bounded frames in flight), so extraction and inference overlap. Each frame is judged under the policy;
 * the video's verdict is the most severe of its frames.
 */
export async function analyzeVideoFile(
  file: string,
  provider: Provider,
  policy: Policy,
  options: AnalyzeOptions,
): Promise<VideoAnalysis> {
  const started = performance.now();
  const scores: Partial<Record<CategoryName, number>> = {};
  const evaluated = new Set<CategoryName>();
  let cost = 0;
  let modelVersion = provider.modelVersion;
  let done = 0;
  let bankMatch: BankMatch | null = null;
  const frames = extractFrames(file, {
    intervalSeconds: options.intervalSeconds,
    maxFrames: options.maxFrames,
    maxDurationSeconds: options.maxDurationSeconds,
    timeoutMs: options.timeoutMs,
    ...(options.signal && { signal: options.signal }),
  });
  let results: FrameResult[];
  try {
    results = await pipelineFrames(frames, options.maxInFlight, async (frame) => {
      const match = options.banks ? await options.banks.screen(frame.jpeg, `frame:${frame.index}`) : null;
      if (match) {
        if (!bankMatch || ACTION_SEVERITY[match.action] > ACTION_SEVERITY[bankMatch.action])
          bankMatch = match;
        const outcome = applyBankMatch(applyPolicy(policy, { scores: {}, evaluated: [] }), match);
        const entry: FrameResult = {
          ...frameResult(frame.index, frame.timestamp, outcome),
          bankMatch: match,
        };
        if (outcome.flagged && options.evidence) entry.evidence = await options.evidence(frame);
        options.onProgress?.(++done);
        return entry;
      }
      const [image, text] = await Promise.all([
        provider.evaluate({ contentType: 'image', image: frame.jpeg }, options.signal),
        options.textReader ? judgeImageText(options.textReader, frame.jpeg, 'auto', options.signal) : null,
      ]);
      const result = text ? mergeWithText(image, text.result) : image;
      const outcome = applyPolicy(policy, result);
      for (const category of result.evaluated) {
        evaluated.add(category);
        scores[category] = Math.max(scores[category] ?? 0, result.scores[category] ?? 0);
      }
      cost += result.cost;
      modelVersion = result.modelVersion;
      const entry = frameResult(frame.index, frame.timestamp, outcome);
      if (text) entry.ocr = text.ocr;
      if (outcome.flagged && options.evidence) entry.evidence = await options.evidence(frame);
      options.onProgress?.(++done);
      return entry;
    });
  } catch (error) {
    if (error instanceof FrameExtractionError && error.reason === 'decode') {
      throw new AppError('INVALID_CONTENT', 'The video could not be decoded', { reason: 'decode' });
    }
    if (error instanceof FrameExtractionError && error.reason === 'timeout') {
      throw new AppError('INVALID_CONTENT', 'The video took too long to decode', { reason: 'timeout' });
    }
    throw error;
  }
  if (results.length === 0) {
    throw new AppError('INVALID_CONTENT', 'No frame of the video could be decoded', { reason: 'no_frames' });
  }
  const judged = [...evaluated];
  const scored = applyPolicy(policy, { scores, evaluated: judged });
  const matched = bankMatch as BankMatch | null;
  return {
    frames: results,
    outcome: matched ? applyBankMatch(scored, matched) : scored,
    bankMatch: matched,
    scores,
    evaluated: judged,
    provider: provider.name,
    modelVersion,
    cost,
    latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
  };
}
