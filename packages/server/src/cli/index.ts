import type { Command } from 'commander';
import { registerAuditCommand } from './audit.ts';
import { registerBatchCommands } from './batch.ts';
import { registerCheckCommand } from './check.ts';
import { registerDecisionCommands } from './decisions.ts';
import { registerListCommands } from './lists.ts';
import { registerPolicyCommands } from './policies.ts';
import { registerReviewCommands } from './review.ts';
import { type CliIO, processIO } from './shared.ts';
import { registerVideoCommands } from './video.ts';
import { registerWebhookCommands } from './webhooks.ts';

export type { CliIO } from './shared.ts';

/**
 * The client commands of `verdict`: they talk to a running service through @verdict/sdk (`--url`, `--api-key`),
 * unlike the operator commands (serve, migrate, keys, accounts), which work on the database directly.
 */
export function registerClientCommands(program: Command, io: CliIO = processIO): Command {
  registerPolicyCommands(program, io);
  registerCheckCommand(program, io);
  registerDecisionCommands(program, io);
  registerBatchCommands(program, io);
  registerVideoCommands(program, io);
  registerWebhookCommands(program, io);
  registerAuditCommand(program, io);
  registerListCommands(program, io);
  registerReviewCommands(program, io);
  return program;
}
