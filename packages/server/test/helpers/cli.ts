import { Command, CommanderError } from 'commander';
import { registerClientCommands } from '../../src/cli/index.ts';
import type { CliIO } from '../../src/cli/shared.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `verdict <args>` in-process through the same commander program the binary builds (fast), against the
 * service at `env.VERDICT_URL` with `env.VERDICT_API_KEY`, as a user's shell would set them.
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  options: { stdin?: string } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  let code = 0;
  const io: CliIO = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    env,
    setExitCode: (c) => {
      code = c;
    },
    readStdin: async () => options.stdin ?? '',
  };
  const program = new Command('verdict')
    .exitOverride()
    .configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerClientCommands(program, io);
  try {
    await program.parseAsync(['node', 'verdict', ...args]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    code = error.exitCode;
  }
  return { code, stdout, stderr };
}
