import type { Command } from 'commander';
import { EVENT_TYPES, type EventType, isEventType } from '../domain/event-types.ts';
import {
  action,
  CliError,
  type ClientOptions,
  type CliIO,
  clientOptions,
  EXIT,
  makeClient,
  parseInteger,
  printJson,
  println,
  table,
} from './shared.ts';

function eventList(value: string, name: string): EventType[] {
  const events = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = events.filter((e) => !isEventType(e));
  if (events.length === 0 || unknown.length > 0) {
    throw new CliError(
      'INVALID_EVENT_TYPE',
      `${name}: ${unknown.length ? `unknown ${unknown.join(', ')}; ` : ''}expected some of ${EVENT_TYPES.join(', ')}`,
    );
  }
  return events as EventType[];
}

export function registerWebhookCommands(program: Command, io: CliIO): void {
  const webhooks = program
    .command('webhooks')
    .description('Webhook endpoints: list, create, test, deliveries, delete');

  clientOptions(webhooks.command('list').description("List your account's webhooks")).action(
    action(io, async (opts: ClientOptions) => {
      const { webhooks: list } = await (await makeClient(opts, io)).webhooks.list();
      if (opts.json) return printJson(io, list);
      if (list.length === 0) return println(io, 'No webhooks');
      println(
        io,
        table([
          ['WEBHOOK', 'URL', 'EVENTS', 'STATE'],
          ...list.map((w) => [
            w.id,
            w.url,
            w.events.join(','),
            w.enabled ? 'enabled' : `disabled${w.disabledReason ? ` (${w.disabledReason})` : ''}`,
          ]),
        ]),
      );
    }),
  );

  clientOptions(
    webhooks
      .command('create <https-url>')
      .description('Register an https endpoint; its signing secret is printed once')
      .requiredOption('--events <list>', `comma-separated: ${EVENT_TYPES.join(', ')}`)
      .option('--description <text>', 'a note for humans'),
  ).action(
    action(io, async (endpoint: string, opts: ClientOptions & { events: string; description?: string }) => {
      const events = eventList(opts.events, '--events');
      const webhook = await (await makeClient(opts, io)).webhooks.create({
        url: endpoint,
        events,
        description: opts.description,
      });
      if (opts.json) return printJson(io, webhook);
      println(io, `Created ${webhook.id} → ${webhook.url} [${webhook.events.join(', ')}]`);
      println(io, '');
      println(io, `  signing secret: ${webhook.secret}`);
      println(io, '');
      println(io, 'The secret is shown only once. Verify X-Service-Signature with it (see @verdict/sdk).');
    }),
  );

  clientOptions(
    webhooks
      .command('test <webhookId>')
      .description('Send one signed test event now and show how the endpoint answered')
      .option(
        '--event <type>',
        `event type: ${EVENT_TYPES.join(', ')} (default: the first type the webhook subscribes to)`,
      ),
  ).action(
    action(io, async (webhookId: string, opts: ClientOptions & { event?: string }) => {
      const client = await makeClient(opts, io);
      // by default an event the endpoint actually receives, not one it never subscribed to
      const subscribed = opts.event === undefined ? (await client.webhooks.get(webhookId)).events : [];
      const eventType =
        opts.event !== undefined
          ? eventList(opts.event, '--event')[0]!
          : (subscribed.find(isEventType) ?? 'decision.created');
      const result = await client.webhooks.test(webhookId, { eventType });
      if (opts.json) printJson(io, result);
      else {
        println(
          io,
          `${result.success ? 'Delivered' : 'Failed'} ${result.eventId}: ${result.responseCode ?? 'no response'} in ${Math.round(result.durationMs)} ms${result.error ? ` (${result.error})` : ''}`,
        );
      }
      if (!result.success) io.setExitCode(EXIT.api);
    }),
  );

  clientOptions(
    webhooks
      .command('deliveries <webhookId>')
      .description('Delivery attempts of a webhook, newest first')
      .option('--limit <n>', 'attempts to show, 1–100', '20'),
  ).action(
    action(io, async (webhookId: string, opts: ClientOptions & { limit: string }) => {
      const limit = parseInteger(opts.limit, '--limit', 1, 100);
      const { deliveries } = await (await makeClient(opts, io)).webhooks.deliveries(webhookId, { limit });
      if (opts.json) return printJson(io, deliveries);
      if (deliveries.length === 0) return println(io, 'No deliveries');
      println(
        io,
        table([
          ['TIME', 'EVENT', 'TYPE', 'ATTEMPT', 'STATUS', 'CODE', 'MS'],
          ...deliveries.map((d) => [
            d.timestamp,
            d.eventId,
            d.eventType,
            String(d.attempt),
            d.status,
            d.responseCode === null ? '-' : String(d.responseCode),
            String(Math.round(d.durationMs)),
          ]),
        ]),
      );
    }),
  );

  clientOptions(webhooks.command('delete <webhookId>').description('Delete a webhook')).action(
    action(io, async (webhookId: string, opts: ClientOptions) => {
      const result = await (await makeClient(opts, io)).webhooks.delete(webhookId);
      if (opts.json) return printJson(io, result);
      println(io, `Deleted ${result.id}`);
    }),
  );
}
