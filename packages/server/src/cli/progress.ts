import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';
import type { CliIO } from './shared.ts';

// cli-progress (17 modules) is loaded only when a bar is shown, not by every `verdict` command that registers one
const requireCjs = createRequire(import.meta.url);

export interface Progress {
  update(value: number, total?: number): void;
  stop(): void;
}

const NONE: Progress = { update() {}, stop() {} };

/**
 * A progress bar on stderr, so stdout stays clean for results. Shown when stderr is a terminal, or when forced
 * with `--progress` (one line per update then, for logs); `--no-progress` hides it.
 */
export function progressBar(io: CliIO, mode: boolean | undefined, label: string, total: number): Progress {
  const force = mode === true;
  if (mode === false || (!force && !io.stderr.isTTY)) return NONE;
  const cliProgress = requireCjs('cli-progress') as typeof CliProgress;
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderr as NodeJS.WritableStream,
      format: `${label} [{bar}] {percentage}% | {value}/{total}`,
      noTTYOutput: force,
      notTTYSchedule: 500,
      hideCursor: Boolean(io.stderr.isTTY),
      clearOnComplete: false,
      gracefulExit: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    update(value, newTotal) {
      if (newTotal !== undefined && newTotal !== bar.getTotal()) bar.setTotal(newTotal);
      bar.update(value);
    },
    stop() {
      bar.stop();
    },
  };
}
