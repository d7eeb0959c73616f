import type { AuditEntry } from '@verdict/sdk';
import type { Command } from 'commander';
import {
  action,
  type ClientOptions,
  type CliIO,
  clientOptions,
  makeClient,
  parseInteger,
  printJson,
  println,
  table,
} from './shared.ts';

const actorLabel = (e: AuditEntry) =>
  e.actor.kind === 'operator' ? 'operator (CLI)' : `${e.actor.name ?? '?'} (${e.actor.keyId})`;

export function registerAuditCommand(program: Command, io: CliIO): void {
  clientOptions(
    program
      .command('audit')
      .description('The audit log: who changed keys, webhooks, policies, banks and reviews, newest first')
      .option('--action <action>', 'an exact action (key.revoked) or every action on a type (key)')
      .option('--target <id>', 'only entries about this key, webhook, policy, bank or decision')
      .option('--actor <keyId>', 'only entries by this API key')
      .option('--from <time>', 'ISO 8601, inclusive')
      .option('--to <time>', 'ISO 8601, exclusive')
      .option('--limit <n>', 'entries, 1–10000', '50'),
  ).action(
    action(
      io,
      async (
        opts: ClientOptions & {
          action?: string;
          target?: string;
          actor?: string;
          from?: string;
          to?: string;
          limit: string;
        },
      ) => {
        const limit = parseInteger(opts.limit, '--limit', 1, 10_000);
        const client = await makeClient(opts, io);
        const entries: AuditEntry[] = [];
        const filters = {
          ...(opts.action && { action: opts.action }),
          ...(opts.target && { targetId: opts.target }),
          ...(opts.actor && { actorKeyId: opts.actor }),
          ...(opts.from && { from: opts.from }),
          ...(opts.to && { to: opts.to }),
        };
        for await (const entry of client.audit.all(filters)) {
          entries.push(entry);
          if (entries.length >= limit) break;
        }
        if (opts.json) return printJson(io, entries);
        if (entries.length === 0) return println(io, 'No audit entries');
        println(
          io,
          table([
            ['TIME', 'ACTION', 'TARGET', 'BY'],
            ...entries.map((e) => [e.createdAt, e.action, `${e.target.type} ${e.target.id}`, actorLabel(e)]),
          ]),
        );
      },
    ),
  );
}
