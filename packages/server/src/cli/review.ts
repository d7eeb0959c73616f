import type { Decision, ReviewQueueItem } from '@verdict/sdk';
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

const ACTIONS = ['allow', 'warn', 'flag', 'block'] as const;
type Action = (typeof ACTIONS)[number];

interface FilterOptions {
  reason?: 'category' | 'action' | 'sample' | 'appeal';
  policy?: string;
  action?: Action;
}

const withFilters = (command: Command) =>
  command
    .option('--reason <reason>', 'only entries queued for: category, action, sample or appeal')
    .option('--policy <policyId>', 'only decisions of this policy')
    .option('--action <action>', 'only decisions whose automated action was this');

const filters = (opts: FilterOptions) => ({
  ...(opts.reason && { reason: opts.reason }),
  ...(opts.policy && { policyId: opts.policy }),
  ...(opts.action && { action: opts.action }),
});

function actionOf(value: string): Action {
  if (!(ACTIONS as readonly string[]).includes(value))
    throw new CliError('INVALID_PARAMETER', `--action: expected one of ${ACTIONS.join(', ')}`);
  return value as Action;
}

const categoryList = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean);

const preview = (content: string | undefined) => {
  const line = (content ?? '').replace(/\s+/g, ' ').trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
};

function queueTable(items: ReviewQueueItem[]): string {
  return table([
    ['ITEM', 'DECISION', 'REASON', 'ACTION', 'POLICY', 'LEASE', 'CONTENT'],
    ...items.map((i) => [
      i.itemId,
      i.decisionId,
      i.priority > 0 ? `${i.reason} (priority)` : i.reason,
      i.action,
      i.policyId,
      i.lease ? `until ${i.lease.expiresAt}` : '-',
      preview(i.decision?.content),
    ]),
  ]);
}

const reviewedLine = (d: Decision) =>
  `${d.decisionId}  ${d.review?.outcome === 'overturn' ? `overturned ${d.action} → ${d.effectiveAction}` : `confirmed ${d.effectiveAction}`}` +
  `  (by ${d.review?.reviewer.name ?? d.review?.reviewer.keyId})`;

interface ReviewOptions extends ClientOptions {
  categories?: string;
  note?: string;
}

export function registerReviewCommands(program: Command, io: CliIO): void {
  const review = program
    .command('review')
    .description('Human review: queue, claim, confirm/overturn, appeal, statements of reasons');

  clientOptions(
    withFilters(
      review.command('queue').description('Decisions waiting for review: appeals first, oldest first'),
    )
      .option('--available', 'hide entries another reviewer holds')
      .option('--limit <n>', 'entries, 1–100', '20')
      .option('--offset <n>', 'skip this many', '0'),
  ).action(
    action(
      io,
      async (
        opts: ClientOptions & FilterOptions & { available?: boolean; limit: string; offset: string },
      ) => {
        const page = await (await makeClient(opts, io)).review.queue({
          ...filters(opts),
          ...(opts.available && { available: 'true' as const }),
          limit: parseInteger(opts.limit, '--limit', 1, 100),
          offset: parseInteger(opts.offset, '--offset'),
        });
        if (opts.json) return printJson(io, page);
        if (page.items.length === 0) return println(io, 'The queue is empty');
        println(io, queueTable(page.items));
        if (page.hasMore) println(io, `… more: --offset ${page.offset + page.items.length}`);
      },
    ),
  );

  clientOptions(
    withFilters(
      review.command('claim').description('Lease entries to this key, so no other reviewer takes them'),
    )
      .option('--limit <n>', 'entries, 1–50', '1')
      .option('--lease <seconds>', 'lease time, 5–3600', '600'),
  ).action(
    action(io, async (opts: ClientOptions & FilterOptions & { limit: string; lease: string }) => {
      const claimed = await (await makeClient(opts, io)).review.claim({
        ...filters(opts),
        limit: parseInteger(opts.limit, '--limit', 1, 50),
        leaseSeconds: parseInteger(opts.lease, '--lease', 5, 3600),
      });
      if (opts.json) return printJson(io, claimed);
      if (claimed.items.length === 0) return println(io, 'Nothing to claim');
      println(io, queueTable(claimed.items));
      println(io, `Leased until ${claimed.leaseExpiresAt}`);
    }),
  );

  clientOptions(
    review.command('release <itemId>').description('Give a claimed entry back to the queue'),
  ).action(
    action(io, async (itemId: string, opts: ClientOptions) => {
      const item = await (await makeClient(opts, io)).review.release(itemId);
      if (opts.json) return printJson(io, item);
      println(io, `Released ${item.itemId} (${item.decisionId})`);
    }),
  );

  const decide = (name: string, description: string, overturn: boolean | 'either') => {
    let command = review
      .command(`${name} <decisionId>`)
      .description(description)
      .option('--categories <list>', 'comma-separated categories that apply')
      .option('--note <text>', "the reviewer's note");
    if (overturn === 'either')
      command = command
        .requiredOption('--outcome <outcome>', 'confirm or overturn')
        .option('--action <action>');
    else if (overturn)
      command = command.requiredOption('--action <action>', 'the action that applies instead');
    clientOptions(command).action(
      action(io, async (decisionId: string, opts: ReviewOptions & { outcome?: string; action?: string }) => {
        const outcome = overturn === 'either' ? opts.outcome : overturn ? 'overturn' : 'confirm';
        if (outcome !== 'confirm' && outcome !== 'overturn')
          throw new CliError('INVALID_PARAMETER', '--outcome: expected confirm or overturn');
        const categories = categoryList(opts.categories);
        const d = await (await makeClient(opts, io)).review.decide(decisionId, {
          outcome,
          ...(opts.action !== undefined && { action: actionOf(opts.action) }),
          ...(categories && { categories }),
          ...(opts.note !== undefined && { note: opts.note }),
        });
        if (opts.json) return printJson(io, d);
        println(io, reviewedLine(d));
      }),
    );
  };
  decide('confirm', "Confirm a decision's action", false);
  decide('overturn', 'Overturn a decision to another action (the automated one stays in the record)', true);
  decide('decide', 'Record a review: --outcome confirm|overturn [--action]', 'either');

  clientOptions(
    review
      .command('appeal <decisionId>')
      .description('Appeal a decision on behalf of your user (it goes to the front of the queue)')
      .requiredOption('--statement <text>', "the user's statement (≤ 5,000 characters)")
      .option('--user <id>', 'your ID of the user'),
  ).action(
    action(io, async (decisionId: string, opts: ClientOptions & { statement: string; user?: string }) => {
      const appeal = await (await makeClient(opts, io)).review.appeal(decisionId, {
        statement: opts.statement,
        ...(opts.user !== undefined && { userId: opts.user }),
      });
      if (opts.json) return printJson(io, appeal);
      println(io, `Appeal ${appeal.appealId} of ${appeal.decisionId}: ${appeal.status}`);
    }),
  );

  clientOptions(review.command('appeals <decisionId>').description("A decision's appeals")).action(
    action(io, async (decisionId: string, opts: ClientOptions) => {
      const { appeals } = await (await makeClient(opts, io)).review.appeals(decisionId);
      if (opts.json) return printJson(io, appeals);
      if (appeals.length === 0) return println(io, 'No appeals');
      println(
        io,
        table([
          ['APPEAL', 'STATUS', 'FILED', 'RESOLVED'],
          ...appeals.map((a) => [a.appealId, a.status, a.createdAt, a.resolvedAt ?? '-']),
        ]),
      );
    }),
  );

  clientOptions(
    review.command('statement <decisionId>').description('The statement of reasons (DSA Art. 17), as text'),
  ).action(
    action(io, async (decisionId: string, opts: ClientOptions) => {
      const client = (await makeClient(opts, io)).review;
      if (opts.json) return printJson(io, await client.statement(decisionId));
      io.stdout.write(await client.statementText(decisionId));
    }),
  );

  clientOptions(
    review
      .command('export')
      .description('Statements of reasons as JSON lines (restrictions only, unless --all)')
      .option('--from <time>', 'ISO 8601, inclusive')
      .option('--to <time>', 'ISO 8601, exclusive')
      .option('--all', 'every decision, restricted or not'),
  ).action(
    action(io, async (opts: ClientOptions & { from?: string; to?: string; all?: boolean }) => {
      const statements = await (await makeClient(opts, io)).review.exportStatements({
        ...(opts.from && { from: opts.from }),
        ...(opts.to && { to: opts.to }),
        ...(opts.all && { all: 'true' as const }),
      });
      for (const s of statements) io.stdout.write(`${JSON.stringify(s)}\n`);
    }),
  );

  clientOptions(
    review
      .command('quality')
      .description(
        "A policy's automated decisions against the reviewers: precision, recall, suggested thresholds",
      )
      .requiredOption('--policy <policyId>', 'the policy to measure')
      .option('--from <time>', 'reviews from (ISO 8601, inclusive)')
      .option('--to <time>', 'reviews before (ISO 8601, exclusive)')
      .option('--target <precision>', 'the precision a suggested threshold must reach', '0.9'),
  ).action(
    action(
      io,
      async (opts: ClientOptions & { policy: string; from?: string; to?: string; target: string }) => {
        const report = await (await makeClient(opts, io)).review.quality({
          policyId: opts.policy,
          targetPrecision: opts.target,
          ...(opts.from && { from: opts.from }),
          ...(opts.to && { to: opts.to }),
        });
        if (opts.json) return printJson(io, report);
        const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)} %`);
        println(
          io,
          `${report.policyId} v${report.policyVersion}: ${report.reviewedDecisions} reviewed decisions`,
        );
        if (report.categories.length === 0) return println(io, 'No reviewed decisions in this window');
        println(
          io,
          table([
            [
              'CATEGORY',
              'LABELLED',
              'PRECISION',
              'RECALL',
              'THRESHOLD',
              `FOR ${pct(report.targetPrecision)}`,
            ],
            ...report.categories.map((c) => [
              c.category,
              String(c.labelled),
              pct(c.precision),
              pct(c.recall),
              c.currentThreshold === null ? '-' : String(c.currentThreshold),
              c.suggestedThreshold
                ? `${c.suggestedThreshold.threshold} (recall ${pct(c.suggestedThreshold.recall)})`
                : '-',
            ]),
          ]),
        );
      },
    ),
  );
}
