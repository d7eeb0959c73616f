import type { List } from '@verdict/sdk';
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
  readFile,
  table,
} from './shared.ts';

function describeList(list: List): string {
  const effect = list.kind === 'block' ? `action ${list.action}` : `caps ${JSON.stringify(list.caps)}`;
  return `${list.name} (${list.id})  ${list.kind} list, ${effect}, ${list.entryCount} entries (${list.regexCount} regex), version ${list.version}`;
}

/** `--regex` makes every given entry a regex; otherwise each is a term or phrase. */
function entriesOf(values: string[], regex?: boolean) {
  if (values.length === 0) throw new CliError('MISSING_REQUIRED_FIELD', 'Give at least one entry');
  return values.map((v) => (regex ? { regex: v } : v));
}

export function registerListCommands(program: Command, io: CliIO): void {
  const lists = program
    .command('lists')
    .description(
      'Manage match lists (block and allow lists of terms, phrases and regexes) on a running service',
    );

  clientOptions(
    lists
      .command('create <name>')
      .description('Create a block list (--action, default block) or an allow list (--caps)')
      .option('--kind <kind>', 'block or allow', 'block')
      .option('--action <action>', 'a block list: allow, warn, flag or block')
      .option('--caps <json>', 'an allow list: category → action or score as JSON, e.g. {"hate":"warn"}')
      .option('--description <text>', 'what the list is for'),
  ).action(
    action(
      io,
      async (
        name: string,
        opts: ClientOptions & { kind: string; action?: string; caps?: string; description?: string },
      ) => {
        let caps: unknown;
        if (opts.caps !== undefined) {
          try {
            caps = JSON.parse(opts.caps);
          } catch {
            throw new CliError('INVALID_PARAMETER', '--caps must be JSON, e.g. {"hate":"warn"}');
          }
        }
        const created = await (await makeClient(opts, io)).lists.create({
          name,
          kind: opts.kind as 'block' | 'allow',
          ...(opts.action !== undefined && { action: opts.action as 'block' }),
          ...(caps !== undefined && { caps: caps as Record<string, 'warn'> }),
          ...(opts.description !== undefined && { description: opts.description }),
        });
        if (opts.json) return printJson(io, created);
        println(io, `Created ${describeList(created.list)}`);
      },
    ),
  );

  clientOptions(lists.command('list').description("List the account's lists")).action(
    action(io, async (opts: ClientOptions) => {
      const { lists: all } = await (await makeClient(opts, io)).lists.list();
      if (opts.json) return printJson(io, all);
      println(
        io,
        table([
          ['NAME', 'KIND', 'EFFECT', 'ENTRIES', 'VERSION'],
          ...all.map((l) => [
            l.name,
            l.kind,
            l.kind === 'block' ? String(l.action) : JSON.stringify(l.caps),
            String(l.entryCount),
            String(l.version),
          ]),
        ]),
      );
    }),
  );

  clientOptions(
    lists
      .command('show <list>')
      .description('Show a list and a page of its entries, newest first')
      .option('--limit <n>', 'entries per page (1–1000)', '20')
      .option('--offset <n>', 'entries to skip', '0'),
  ).action(
    action(io, async (list: string, opts: ClientOptions & { limit: string; offset: string }) => {
      const page = await (await makeClient(opts, io)).lists.get(list, {
        limit: String(parseInteger(opts.limit, '--limit', 1, 1000)),
        offset: String(parseInteger(opts.offset, '--offset', 0)),
      });
      if (opts.json) return printJson(io, page);
      println(io, describeList(page.list));
      println(
        io,
        table([
          ['ENTRY', 'TYPE', 'MATCHES', 'ID'],
          ...page.entries.map((e) => [e.value, e.type, e.normalised ?? '(regex)', e.id]),
        ]),
      );
      if (page.hasMore) println(io, `… more: --offset ${page.offset + page.limit}`);
    }),
  );

  clientOptions(
    lists
      .command('add <list> <entries...>')
      .description('Add terms or phrases (quote a phrase), or regexes with --regex')
      .option('--regex', 'the entries are RE2 regexes'),
  ).action(
    action(io, async (list: string, values: string[], opts: ClientOptions & { regex?: boolean }) => {
      const result = await (await makeClient(opts, io)).lists.add(list, entriesOf(values, opts.regex));
      if (opts.json) return printJson(io, result);
      println(io, `Added ${result.added} (${result.duplicates} already there); ${describeList(result.list)}`);
    }),
  );

  clientOptions(
    lists
      .command('remove <list> <entries...>')
      .description('Remove entries as written (or by entry ID with --ids)')
      .option('--regex', 'the entries are regexes')
      .option('--ids', 'the arguments are entry IDs (lse_…)'),
  ).action(
    action(
      io,
      async (list: string, values: string[], opts: ClientOptions & { regex?: boolean; ids?: boolean }) => {
        const result = await (await makeClient(opts, io)).lists.remove(
          list,
          opts.ids ? { ids: values } : { entries: entriesOf(values, opts.regex) },
        );
        if (opts.json) return printJson(io, result);
        println(
          io,
          `Removed ${result.removed} (${result.notFound} not in the list); ${describeList(result.list)}`,
        );
      },
    ),
  );

  clientOptions(
    lists
      .command('import <list>')
      .description('Import a text file, one entry a line (`regex:<pattern>` for a regex; # comments)')
      .requiredOption('-f, --file <entries.txt>', 'the file'),
  ).action(
    action(io, async (list: string, opts: ClientOptions & { file: string }) => {
      const text = readFile(opts.file, '--file').toString('utf8');
      const result = await (await makeClient(opts, io)).lists.import(list, text);
      if (opts.json) return printJson(io, result);
      println(
        io,
        `Imported ${result.received}: added ${result.added}, ${result.duplicates} already there; ${describeList(result.list)}`,
      );
    }),
  );

  clientOptions(
    lists.command('delete <list>').description('Delete a list (refused while a policy names it)'),
  ).action(
    action(io, async (list: string, opts: ClientOptions) => {
      const result = await (await makeClient(opts, io)).lists.delete(list);
      if (opts.json) return printJson(io, result);
      println(io, `Deleted ${result.id}`);
    }),
  );
}
