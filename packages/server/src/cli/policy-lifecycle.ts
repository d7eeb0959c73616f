import type { Backtest, ChangeReport, Verdict } from '@verdict/sdk';
import type { Command } from 'commander';
import { ACTIONS } from './format.ts';
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
  readFile,
  table,
} from './shared.ts';

const MAX_WAIT_MS = 60 * 60_000;

/** The old→new matrix, counts and reasons of a backtest or shadow report, as text. */
export function reportLines(report: ChangeReport): string[] {
  const lines = [
    `${report.total} decisions: ${report.replayed} replayed, ${report.changed} would change, ` +
      `${report.notReplayable.total} not replayable`,
    '',
    table([
      ['OLD \\ NEW', ...ACTIONS],
      ...ACTIONS.map((from) => [from, ...ACTIONS.map((to) => String(report.matrix[from][to]))]),
    ]),
  ];
  const categories = Object.entries(report.categories).filter(
    ([, c]) => c.newlyTriggered + c.noLongerTriggered > 0,
  );
  if (categories.length > 0) {
    lines.push('', 'categories:');
    for (const [name, c] of categories)
      lines.push(
        `  ${name.padEnd(12)} +${c.newlyTriggered} newly triggered, -${c.noLongerTriggered} no longer`,
      );
  }
  for (const [reason, n] of Object.entries(report.notReplayable.reasons))
    lines.push(`not replayable (${reason}): ${n}`);
  return lines;
}

/** Exactly one candidate: a YAML file, a version of the policy, or (shadows) another policy. */
function candidate(opts: { file?: string; version?: string; policy?: string }, shadow = false) {
  const given = [opts.file, opts.version, opts.policy].filter((v) => v !== undefined);
  if (given.length !== 1) {
    const choices = shadow ? '--file, --version or --policy' : '--file or --version';
    throw new CliError('INVALID_ARGUMENT', `give exactly one candidate: ${choices}`);
  }
  if (opts.file !== undefined) return { yamlContent: readFile(opts.file, '--file').toString('utf8') };
  if (opts.version !== undefined) return { version: parseInteger(opts.version, '--version', 1) };
  return { shadowPolicyId: opts.policy! };
}

async function waitFor(client: Verdict, backtest: Backtest, io: CliIO, pollMs: number): Promise<Backtest> {
  const deadline = Date.now() + MAX_WAIT_MS;
  let current = backtest;
  while ((current.status === 'queued' || current.status === 'running') && Date.now() < deadline) {
    if (io.stderr.isTTY) io.stderr.write(`\r${current.progress.processed}/${current.progress.total}`);
    await new Promise((r) => setTimeout(r, pollMs));
    current = await client.policies.getBacktest(current.backtestId);
  }
  if (io.stderr.isTTY) io.stderr.write('\n');
  return current;
}

/** `verdict policies versions|diff|rollback|delete|backtest|shadow` (issue 18). */
export function registerPolicyLifecycleCommands(policies: Command, io: CliIO): void {
  clientOptions(policies.command('versions <policyId>').description('List every version of a policy')).action(
    action(io, async (policyId: string, opts: ClientOptions) => {
      const { versions } = await (await makeClient(opts, io)).policies.versions(policyId);
      if (opts.json) return printJson(io, versions);
      println(
        io,
        table([
          ['VERSION', 'NAME', 'CATEGORIES', 'WRITTEN'],
          ...versions.map((v) => [
            String(v.version),
            v.name,
            String(Object.keys(v.categories).length),
            v.updatedAt,
          ]),
        ]),
      );
    }),
  );

  clientOptions(
    policies
      .command('diff <policyId>')
      .description('Show what changed between two versions (default: the latest and the one before)')
      .option('--from <version>', 'older version')
      .option('--to <version>', 'newer version (default: the latest)'),
  ).action(
    action(io, async (policyId: string, opts: ClientOptions & { from?: string; to?: string }) => {
      const diff = await (await makeClient(opts, io)).policies.diff(policyId, {
        ...(opts.from !== undefined && { from: parseInteger(opts.from, '--from', 1) }),
        ...(opts.to !== undefined && { to: parseInteger(opts.to, '--to', 1) }),
      });
      if (opts.json) return printJson(io, diff);
      io.stdout.write(
        diff.unified === '' ? `versions ${diff.from} and ${diff.to} are the same\n` : diff.unified,
      );
    }),
  );

  clientOptions(
    policies
      .command('rollback <policyId>')
      .description('Store a new version equal to an earlier one')
      .requiredOption('--version <n>', 'the version to return to'),
  ).action(
    action(io, async (policyId: string, opts: ClientOptions & { version: string }) => {
      const version = parseInteger(opts.version, '--version', 1);
      const policy = await (await makeClient(opts, io)).policies.rollback(policyId, version);
      if (opts.json) return printJson(io, policy);
      println(io, `${policy.policyId} is now version ${policy.version} (equal to version ${version})`);
    }),
  );

  clientOptions(policies.command('delete <policyId>').description('Delete one of your policies')).action(
    action(io, async (policyId: string, opts: ClientOptions) => {
      const result = await (await makeClient(opts, io)).policies.delete(policyId);
      if (opts.json) return printJson(io, result);
      println(io, `Deleted ${result.policyId} (decisions keep their policy ID and version)`);
    }),
  );

  clientOptions(
    policies
      .command('backtest <policyId>')
      .description('Replay a candidate policy over stored decisions and report what would change')
      .option('-f, --file <policy.yaml>', 'the candidate as a YAML file')
      .option('--version <n>', 'the candidate: a version of this policy')
      .option('--from <time>', 'ISO 8601 start of the window (default: 30 days before --to)')
      .option('--to <time>', 'ISO 8601 end of the window (default: now)')
      .option('--scope <scope>', '"policy" (decisions under this policy, default) or "account"')
      .option('--limit <n>', 'at most this many decisions (default 100000)')
      .option('--async', 'run as a background job even when small')
      .option('--no-wait', 'do not wait for a background backtest; print it as queued'),
  ).action(
    action(
      io,
      async (
        policyId: string,
        opts: ClientOptions & {
          file?: string;
          version?: string;
          from?: string;
          to?: string;
          scope?: string;
          limit?: string;
          async?: boolean;
          wait: boolean;
        },
      ) => {
        if (opts.scope !== undefined && opts.scope !== 'policy' && opts.scope !== 'account')
          throw new CliError('INVALID_ARGUMENT', '--scope: expected "policy" or "account"');
        const client = await makeClient(opts, io);
        let backtest = await client.policies.backtest(policyId, {
          ...candidate({ file: opts.file, version: opts.version }),
          ...(opts.from !== undefined && { from: opts.from }),
          ...(opts.to !== undefined && { to: opts.to }),
          ...(opts.scope !== undefined && { scope: opts.scope as 'policy' | 'account' }),
          ...(opts.limit !== undefined && { limit: parseInteger(opts.limit, '--limit', 1) }),
          ...(opts.async && { async: true }),
        });
        if (opts.wait) backtest = await waitFor(client, backtest, io, 500);
        if (opts.json) return printJson(io, backtest);
        println(
          io,
          `${backtest.backtestId}  ${backtest.status}  ${backtest.progress.processed}/${backtest.progress.total}`,
        );
        if (backtest.report) println(io, reportLines(backtest.report).join('\n'));
        if (backtest.error) throw new CliError(backtest.error.code, backtest.error.message, 1);
      },
    ),
  );

  clientOptions(
    policies
      .command('shadow <policyId>')
      .description('Run a candidate beside a live policy without effect; show, report or stop it')
      .option('-f, --file <policy.yaml>', 'start: the candidate as a YAML file')
      .option('--version <n>', 'start: a version of this policy')
      .option('--policy <policyId>', 'start: another policy')
      .option('--until <time>', 'start: stop recording at this ISO 8601 time (at most 90 days ahead)')
      .option('--report', 'print what the shadow would have changed')
      .option('--stop', 'stop the running shadow'),
  ).action(
    action(
      io,
      async (
        policyId: string,
        opts: ClientOptions & {
          file?: string;
          version?: string;
          policy?: string;
          until?: string;
          report?: boolean;
          stop?: boolean;
        },
      ) => {
        const client = await makeClient(opts, io);
        const starting = [opts.file, opts.version, opts.policy].some((v) => v !== undefined);
        if ([starting, opts.report, opts.stop].filter(Boolean).length > 1)
          throw new CliError('INVALID_ARGUMENT', 'give a candidate to start, or --report, or --stop');
        if (opts.report) {
          const { shadow, report, truncated } = await client.policies.shadowReport(policyId);
          if (opts.json) return printJson(io, { shadow, report, truncated });
          println(io, `${shadow.shadowId}  ${shadow.status}  candidate ${shadow.candidate.policyId}`);
          return println(io, reportLines(report).join('\n'));
        }
        const shadow = opts.stop
          ? await client.policies.stopShadow(policyId)
          : starting
            ? await client.policies.setShadow(policyId, {
                ...candidate({ file: opts.file, version: opts.version, policy: opts.policy }, true),
                ...(opts.until !== undefined && { until: opts.until }),
              })
            : await client.policies.getShadow(policyId);
        if (opts.json) return printJson(io, shadow);
        const candidateName = `${shadow.candidate.source} ${shadow.candidate.policyId}${shadow.candidate.version ? ` v${shadow.candidate.version}` : ''}`;
        println(
          io,
          `${shadow.shadowId}  ${shadow.status}  beside ${shadow.policyId}  candidate ${candidateName}`,
        );
      },
    ),
  );
}
