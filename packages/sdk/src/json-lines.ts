import { APIConnectionError, APITimeoutError } from './errors.ts';

/**
 * The objects of a JSON Lines body, parsed as the bytes arrive, so a long stream is never held whole. `idleMs`
 * without data, or a connection lost mid-stream, ends it with an `APITimeoutError` / `APIConnectionError`;
 * leaving the loop early cancels the stream.
 */
export async function* readJsonLines<T>(
  stream: ReadableStream<Uint8Array>,
  idleMs: number,
  signal?: AbortSignal,
): AsyncGenerator<T> {
  const reader = stream.getReader();
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  const decoder = new TextDecoder();
  let rest = '';
  let done = false;
  try {
    while (!done) {
      const chunk = await readWithin(reader, idleMs);
      done = chunk.done;
      rest += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      const lines = rest.split('\n');
      rest = done ? '' : lines.pop()!;
      for (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as T;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!done) await reader.cancel().catch(() => {});
  }
}

async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  idleMs: number,
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new APITimeoutError({ code: 'TIMEOUT', message: `No data for ${idleMs} ms` })),
      idleMs,
    );
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } catch (error) {
    if (error instanceof APITimeoutError) throw error;
    throw new APIConnectionError({
      code: 'CONNECTION_ERROR',
      message: `The stream broke off: ${(error as Error)?.message ?? String(error)}`,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
