import fs from 'node:fs';
import type { Decision, DecisionExportParams } from '@verdict/sdk';
import type { Command } from 'commander';
import {
  action,
  CliError,
  type ClientOptions,
  type CliIO,
  clientOptions,
  makeClient,
  parseInteger,
  printJson,
  println,
  table,
} from './shared.ts';

interface FilterOptions {
  action?: string;
  policy?: string;
  category?: string;
  contentType?: string;
  from?: string;
  to?: string;
  user?: string;
  key?: string;
}

/** The filters of GET /v1/decisions as options (the service validates them: a bad one is INVALID_PARAMETER). */
function filterOptions(command: Command): Command {
  return command
    .option('--action <action>', 'allow, warn, flag or block')
    .option('--policy <policyId>', 'decided under this policy')
    .option('--category <category>', 'in which this category triggered')
    .option('--content-type <type>', 'text, image, video or multimodal')
    .option('--from <time>', 'ISO 8601, inclusive')
    .option('--to <time>', 'ISO 8601, exclusive')
    .option('--user <userId>', 'metadata.userId')
    .option('--key <keyId>', 'made with this API key (key_…)');
}

function filters(opts: FilterOptions): DecisionExportParams {
  return {
    action: opts.action as DecisionExportParams['action'],
    policyId: opts.policy,
    category: opts.category,
    contentType: opts.contentType as DecisionExportParams['contentType'],
    from: opts.from,
    to: opts.to,
    userId: opts.user,
    keyId: opts.key,
  };
}

const preview = (content: string) => {
  const line = content.replace(/\s+/g, ' ').trim();
  return line.length > 48 ? `${line.slice(0, 47)}…` : line;
};

/** Writes, waiting when the destination's buffer is full, so a long export never piles up in memory. */
async function write(out: NodeJS.WritableStream | CliIO['stdout'], text: string): Promise<void> {
  const stream = out as NodeJS.WritableStream;
  if (stream.write(text) === false && typeof stream.once === 'function') {
    await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  }
}

/** `verdict decisions search` and `verdict decisions export` (issue 18, item 9). */
export function registerDecisionSearchCommands(decisions: Command, io: CliIO): void {
  clientOptions(
    filterOptions(
      decisions
        .command('search <words...>')
        .description('Decisions whose content holds every word, newest first (full-text, any language)')
        .option('--limit <n>', 'decisions per page, 1–100', '20')
        .option('--offset <n>', 'skip this many', '0'),
    ),
  ).action(
    action(
      io,
      async (words: string[], opts: ClientOptions & FilterOptions & { limit: string; offset: string }) => {
        const limit = parseInteger(opts.limit, '--limit', 1, 100);
        const offset = parseInteger(opts.offset, '--offset');
        const page = await (await makeClient(opts, io)).decisions.list({
          ...filters(opts),
          q: words.join(' '),
          limit,
          offset,
        });
        if (opts.json) return printJson(io, page);
        if (page.decisions.length === 0) return println(io, 'No decisions');
        println(
          io,
          table([
            ['DECISION', 'TIME', 'ACTION', 'POLICY', 'CONTENT'],
            ...page.decisions.map((d) => [
              d.decisionId,
              d.timestamp,
              d.action,
              d.policyId,
              preview(d.content),
            ]),
          ]),
        );
        if (page.hasMore) println(io, `… more: --offset ${offset + page.decisions.length}`);
      },
    ),
  );

  clientOptions(
    filterOptions(
      decisions
        .command('export')
        .description('Every matching decision as JSON Lines (one decision a line, newest first), streamed')
        .option('--q <words>', 'full-text: content holding every word')
        .option('--out <file>', 'write to this file instead of stdout'),
    ),
  ).action(
    action(io, async (opts: ClientOptions & FilterOptions & { q?: string; out?: string }) => {
      const client = await makeClient(opts, io);
      const params = { ...filters(opts), q: opts.q };
      let out: fs.WriteStream | undefined;
      if (opts.out) {
        try {
          out = fs.createWriteStream(opts.out, { flags: 'w' });
          await new Promise<void>((resolve, reject) =>
            out!.once('open', () => resolve()).once('error', reject),
          );
        } catch (error) {
          throw new CliError('INVALID_ARGUMENT', `--out ${opts.out}: ${(error as Error).message}`);
        }
      }
      let count = 0;
      try {
        for await (const decision of client.decisions.export(params) as AsyncIterable<Decision>) {
          await write(out ?? io.stdout, `${JSON.stringify(decision)}\n`);
          count++;
        }
      } finally {
        if (out) await new Promise<void>((resolve) => out!.end(() => resolve()));
      }
      if (out) io.stderr.write(`Exported ${count} decisions to ${opts.out}\n`);
    }),
  );
}
