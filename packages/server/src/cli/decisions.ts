import type { Decision } from '@verdict/sdk';
import type { Command } from 'commander';
import { registerDecisionSearchCommands } from './decision-search.ts';
import { categoryLines, verdictLine } from './format.ts';
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

const preview = (content: string) => {
  const line = content.replace(/\s+/g, ' ').trim();
  return line.length > 48 ? `${line.slice(0, 47)}…` : line;
};

export function registerDecisionCommands(program: Command, io: CliIO): void {
  const decisions = program
    .command('decisions')
    .description('Stored decisions: list, search, export, get, replay, curl');

  clientOptions(
    decisions
      .command('list')
      .description('List your decisions, newest first')
      .option('--limit <n>', 'decisions per page, 1–100 (default: 20; 100 with --all)')
      .option('--offset <n>', 'skip this many', '0')
      .option('--all', 'every decision from --offset on, fetching all pages'),
  ).action(
    action(io, async (opts: ClientOptions & { limit?: string; offset: string; all?: boolean }) => {
      const limit = opts.limit === undefined ? undefined : parseInteger(opts.limit, '--limit', 1, 100);
      const offset = parseInteger(opts.offset, '--offset');
      const client = await makeClient(opts, io);
      let list: Decision[];
      let hasMore = false;
      if (opts.all) {
        list = [];
        for await (const d of client.decisions.list({ limit, offset })) list.push(d);
      } else {
        const page = await client.decisions.list({ limit, offset });
        list = page.decisions;
        hasMore = page.hasMore;
      }
      if (opts.json) return printJson(io, opts.all ? list : { decisions: list, offset, hasMore });
      if (list.length === 0) return println(io, 'No decisions');
      println(
        io,
        table([
          ['DECISION', 'TIME', 'ACTION', 'POLICY', 'TYPE', 'CONTENT'],
          ...list.map((d) => [
            d.decisionId,
            d.timestamp,
            d.action,
            d.policyId,
            d.contentType,
            preview(d.content),
          ]),
        ]),
      );
      if (hasMore) println(io, `… more: --offset ${offset + list.length}, or --all`);
    }),
  );

  clientOptions(decisions.command('get <decisionId>').description('Show a stored decision')).action(
    action(io, async (decisionId: string, opts: ClientOptions) => {
      const d = await (await makeClient(opts, io)).decisions.get(decisionId);
      if (opts.json) return printJson(io, d);
      println(io, verdictLine(d));
      println(io, `  ${d.timestamp}  ${d.contentType}${d.replayOf ? `  replay of ${d.replayOf}` : ''}`);
      println(io, `  content: ${preview(d.content)}`);
      println(io, categoryLines(d.categories).join('\n'));
    }),
  );

  clientOptions(
    decisions
      .command('replay <decisionId>')
      .description('Re-decide the stored content under another policy (stores a new decision)')
      .requiredOption('--policy <policyId>', 'the policy to replay with'),
  ).action(
    action(io, async (decisionId: string, opts: ClientOptions & { policy: string }) => {
      const result = await (await makeClient(opts, io)).decisions.replay(decisionId, {
        policyId: opts.policy,
      });
      if (opts.json) return printJson(io, result);
      println(io, `${verdictLine(result)}  (replay of ${decisionId})`);
      println(io, categoryLines(result.categories).join('\n'));
    }),
  );

  clientOptions(
    decisions
      .command('curl <decisionId>')
      .description('Print a cURL command reproducing the check (the key is $VERDICT_API_KEY)'),
  ).action(
    action(io, async (decisionId: string, opts: ClientOptions) => {
      const result = await (await makeClient(opts, io)).decisions.curl(decisionId);
      if (opts.json) return printJson(io, result);
      println(io, result.curl);
    }),
  );

  registerDecisionSearchCommands(decisions, io);
}
