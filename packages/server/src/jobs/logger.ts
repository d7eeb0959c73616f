/** The part of a pino / Fastify logger the worker uses. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: 100 } as const;

/** JSON lines on stdout in pino's shape, for the standalone worker process. */
export function jsonLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  const min = LEVELS[level as keyof typeof LEVELS] ?? LEVELS.info;
  const write = (lvl: number) => (obj: object, msg?: string) => {
    if (lvl < min) return;
    const err = (obj as { err?: unknown }).err;
    const record = {
      level: lvl,
      time: Date.now(),
      ...bindings,
      ...obj,
      ...(err instanceof Error && { err: { type: err.name, message: err.message, stack: err.stack } }),
      ...(msg !== undefined && { msg }),
    };
    process.stdout.write(`${JSON.stringify(record)}\n`);
  };
  return { info: write(LEVELS.info), warn: write(LEVELS.warn), error: write(LEVELS.error) };
}
