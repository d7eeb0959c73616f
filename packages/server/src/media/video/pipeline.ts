import type { ExtractedFrame } from './frames.ts';

/**
 * Runs `work` on every frame of `frames` with at most `maxInFlight` frames being worked on at once, while the next
 * frames are still being extracted. Results come back in frame order. The first failure stops pulling frames
 * (which stops the extractor) and is thrown once the frames in flight have settled.
 */
export async function pipelineFrames<R>(
  frames: AsyncIterable<ExtractedFrame>,
  maxInFlight: number,
  work: (frame: ExtractedFrame) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const iterator = frames[Symbol.asyncIterator]();
  try {
    for (;;) {
      while (inFlight.size >= maxInFlight && !failure) await Promise.race(inFlight);
      if (failure) break;
      const next = await iterator.next();
      if (next.done) break;
      const frame = next.value;
      const task: Promise<void> = work(frame).then(
        (result) => {
          results[frame.index] = result;
        },
        (error: unknown) => {
          failure ??= { error };
        },
      );
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    }
  } catch (error) {
    failure ??= { error };
  } finally {
    // Stops ffmpeg when we leave early.
    if (failure) await iterator.return?.(undefined).catch(() => {});
  }
  await Promise.all(inFlight);
  if (failure) throw (failure as { error: unknown }).error;
  return results.filter((r) => r !== undefined);
}
