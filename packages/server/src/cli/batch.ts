import fs from 'node:fs';
import type { BatchItem, BatchItemResult } from '@verdict/sdk';
import type { Command } from 'commander';
import { progressBar } from './progress.ts';
import {
  action,
  CliError,
  type ClientOptions,
  type CliIO,
  clientOptions,
  EXIT,
  EXIT_CODES_HELP,
  isVerdictError,
  makeClient,
  parseInteger,
  printJson,
  println,
  readFile,
} from './shared.ts';

/** The service's limit of items per batch request (interface §8). */
export const MAX_BATCH_ITEMS = 100;

interface BatchRunOptions extends ClientOptions {
  policy: string;
  out?: string;
  batchSize: string;
  progress?: boolean;
}

/**
 * Reads JSONL: one item per line, `{"id"?, "content", "contentType"?, "language"?, "metadata"?}`, or a bare JSON
 * string as the content. Items without an `id` get `line-<n>`. Blank lines are skipped.
 */
export function parseItems(text: string, file: string): { items: BatchItem[]; lines: number[] } {
  const items: BatchItem[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new CliError('INVALID_BATCH_ITEM', `${where}: not valid JSON`);
    }
    if (typeof value === 'string') value = { content: value };
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw new CliError('INVALID_BATCH_ITEM', `${where}: expected an object with "content"`);
    }
    const item = value as Record<string, unknown>;
    if (typeof item.content !== 'string') {
      throw new CliError('INVALID_BATCH_ITEM', `${where}: "content" must be a string`);
    }
    items.push({ ...item, id: typeof item.id === 'string' ? item.id : `line-${index + 1}` } as BatchItem);
    lines.push(index + 1);
  });
  return { items, lines };
}

export function registerBatchCommands(program: Command, io: CliIO): void {
  const batch = program.command('batch').description('Check many items from a file');

  clientOptions(
    batch
      .command('run <items.jsonl>')
      .description(
        'Check every item of a JSONL file (one {"id","content",…} per line), in requests of up to 100 items',
      )
      .option('--policy <policyId>', 'policy to apply', 'default')
      .option('--out <results.jsonl>', 'write one result per line here (default: print them)')
      .option('--batch-size <n>', `items per request, 1–${MAX_BATCH_ITEMS}`, String(MAX_BATCH_ITEMS))
      .option('--progress', 'show the progress bar even when stderr is not a terminal')
      .option('--no-progress', 'hide the progress bar'),
  )
    .addHelpText('after', EXIT_CODES_HELP)
    .action(
      action(io, async (file: string, opts: BatchRunOptions) => {
        const size = parseInteger(opts.batchSize, '--batch-size', 1, MAX_BATCH_ITEMS);
        const { items, lines } = parseItems(readFile(file, 'items').toString('utf8'), file);
        if (items.length === 0) throw new CliError('MISSING_REQUIRED_FIELD', `${file}: no items`);
        const ids = new Set<string>();
        items.forEach((item, i) => {
          if (ids.has(item.id))
            throw new CliError('INVALID_BATCH_ITEM', `${file}:${lines[i]}: duplicate id "${item.id}"`);
          ids.add(item.id);
        });
        const client = await makeClient(opts, io);
        // Results are written as each request completes, so a failure later keeps what was decided.
        const out = opts.out ? fs.openSync(opts.out, 'w') : null;
        const results: BatchItemResult[] = [];
        const bar = progressBar(io, opts.progress, 'batch', items.length);
        try {
          for (let start = 0; start < items.length; start += size) {
            const chunk = items.slice(start, start + size);
            let answer: { items: BatchItemResult[] };
            try {
              answer = await client.batch.check({ policyId: opts.policy, items: chunk });
            } catch (error) {
              const details = isVerdictError(error) ? error.details : undefined;
              if (typeof details === 'object' && typeof details.index === 'number') {
                const line = lines[start + details.index];
                io.stderr.write(`verdict: item at ${file}:${line} was rejected\n`);
              }
              throw error;
            }
            results.push(...answer.items);
            if (out !== null) fs.writeSync(out, answer.items.map((r) => `${JSON.stringify(r)}\n`).join(''));
            bar.update(results.length);
          }
        } finally {
          bar.stop();
          if (out !== null) fs.closeSync(out);
          if (results.length < items.length && results.length > 0) {
            io.stderr.write(
              `verdict: ${results.length} of ${items.length} items were decided before the failure\n`,
            );
          }
        }
        const counts: Record<string, number> = {};
        for (const r of results) counts[r.action] = (counts[r.action] ?? 0) + 1;
        if (opts.json) {
          printJson(io, opts.out ? { total: results.length, actions: counts, out: opts.out } : results);
          return;
        }
        if (!opts.out) for (const r of results) println(io, `${r.id}\t${r.action}\t${r.decisionId}`);
        const summary = Object.entries(counts)
          .map(([a, n]) => `${n} ${a}`)
          .join(', ');
        (opts.out ? io.stdout : io.stderr).write(
          `${results.length} items checked against ${opts.policy}: ${summary}${opts.out ? ` → ${opts.out}` : ''}\n`,
        );
        if (results.length !== items.length) io.setExitCode(EXIT.api);
      }),
    );
}
