import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { MAX_ENTRIES_PER_CALL, MAX_IMPORT_BYTES } from '../../../lists/limits.ts';
import { listEntryView, listView } from '../../../lists/views.ts';
import { parsePagination } from '../../pagination.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { ListChanges, ListCreateBody, ListEntryInput } from '../../schemas/lists.ts';

const Params = Type.Object({ listId: Type.String({ description: 'The list ID (lst_…) or name' }) });
const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
/** Bodies of up to MAX_ENTRIES_PER_CALL entries (an object entry is two JSON values) of up to 200 characters. */
const ENTRIES_BODY = {
  bodyLimit: MAX_IMPORT_BYTES,
  maxJsonValues: 2 * MAX_ENTRIES_PER_CALL + 100,
};

/** Match lists (issue 18): terms, phrases and regexes matched in text after the text model's normalisation. */
export const listRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    // an import arrives as plain text, one entry a line; only the import route reads it
    app.addContentTypeParser(
      'text/plain',
      { parseAs: 'string', bodyLimit: MAX_IMPORT_BYTES },
      (_r, body, done) => done(null, body),
    );

    app.post(
      '/v1/lists',
      {
        config: { idempotent: true, scope: 'lists:write', maxJsonValues: ENTRIES_BODY.maxJsonValues },
        bodyLimit: ENTRIES_BODY.bodyLimit,
        schema: {
          tags: ['lists'],
          summary: 'Create a block or allow list (optionally with its first entries); policies name it',
          body: ListCreateBody,
          response: {
            201: Type.Object({ list: Type.Ref('List'), added: Type.Integer(), duplicates: Type.Integer() }),
            ...errorResponses(400, 401, 403, 409, 422, 429),
          },
        },
      },
      async (request, reply) => {
        const created = await ctx.lists.create(principalOf(request), (request.body ?? {}) as never);
        return reply
          .code(201)
          .send({ list: listView(created.list), added: created.added, duplicates: created.duplicates });
      },
    );

    app.get(
      '/v1/lists',
      {
        schema: {
          tags: ['lists'],
          summary: "List the account's lists",
          response: {
            200: Type.Object({ lists: Type.Array(Type.Ref('List')) }),
            ...errorResponses(401, 403, 429),
          },
        },
      },
      async (request) => ({ lists: (await ctx.lists.list(principalOf(request))).map(listView) }),
    );

    app.get(
      '/v1/lists/:listId',
      {
        schema: {
          tags: ['lists'],
          summary: 'Get a list and a page of its entries, newest first (limit default 20, max 1000; offset)',
          params: Params,
          querystring: Type.Object({
            limit: Type.Optional(Type.String()),
            offset: Type.Optional(Type.String()),
          }),
          response: {
            200: Type.Object({
              list: Type.Ref('List'),
              entries: Type.Array(Type.Ref('ListEntry')),
              limit: Type.Integer(),
              offset: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
            ...errorResponses(401, 403, 404, 422, 429),
          },
        },
      },
      async (request) => {
        const page = parsePagination(request.query, { limit: 20, max: 1000 });
        const result = await ctx.lists.listEntries(principalOf(request), request.params.listId, page);
        return {
          list: listView(result.list),
          entries: result.entries.map(listEntryView),
          ...page,
          hasMore: result.hasMore,
        };
      },
    );

    app.delete(
      '/v1/lists/:listId',
      {
        schema: {
          tags: ['lists'],
          summary: 'Delete a list and its entries (409 LIST_IN_USE while a policy names it)',
          params: Params,
          response: { 200: Deleted, ...errorResponses(401, 403, 404, 409, 429) },
        },
      },
      async (request) => {
        const list = await ctx.lists.delete(principalOf(request), request.params.listId);
        return { id: list.id, deleted: true as const };
      },
    );

    app.post(
      '/v1/lists/:listId/entries',
      {
        config: { idempotent: true, scope: 'lists:write', maxJsonValues: ENTRIES_BODY.maxJsonValues },
        bodyLimit: ENTRIES_BODY.bodyLimit,
        schema: {
          tags: ['lists'],
          summary:
            'Add entries (at most 10,000 per request); ones the list holds after normalisation are counted',
          params: Params,
          body: Type.Object({ entries: Type.Array(ListEntryInput) }),
          response: { 200: ListChanges, ...errorResponses(400, 401, 403, 404, 422, 429) },
        },
      },
      async (request) => {
        const body = (request.body ?? {}) as { entries?: unknown };
        const result = await ctx.lists.addEntries(principalOf(request), request.params.listId, body.entries);
        return { ...result, list: listView(result.list) };
      },
    );

    app.delete(
      '/v1/lists/:listId/entries',
      {
        config: { scope: 'lists:write', maxJsonValues: ENTRIES_BODY.maxJsonValues },
        bodyLimit: ENTRIES_BODY.bodyLimit,
        schema: {
          tags: ['lists'],
          summary: 'Remove entries, given as written (normalised like added ones) or by ID; at most 10,000',
          params: Params,
          body: Type.Object({
            entries: Type.Optional(Type.Array(ListEntryInput)),
            ids: Type.Optional(Type.Array(Type.String())),
          }),
          response: {
            200: Type.Object({ list: Type.Ref('List'), removed: Type.Integer(), notFound: Type.Integer() }),
            ...errorResponses(400, 401, 403, 404, 422, 429),
          },
        },
      },
      async (request) => {
        const result = await ctx.lists.removeEntries(
          principalOf(request),
          request.params.listId,
          (request.body ?? {}) as never,
        );
        return { ...result, list: listView(result.list) };
      },
    );

    app.post(
      '/v1/lists/:listId/import',
      {
        config: { scope: 'lists:write' },
        bodyLimit: MAX_IMPORT_BYTES,
        schema: {
          tags: ['lists'],
          summary:
            'Import entries as plain text (Content-Type: text/plain), one a line: a term or phrase, or `regex:<pattern>`; ' +
            'blank lines and lines starting with # are skipped; up to the list’s 100,000 entries and 4 MB',
          params: Params,
          body: Type.Object(
            { text: Type.String({ description: 'The entries, one a line' }) },
            { description: 'JSON `{ text }`, or the text itself with Content-Type: text/plain' },
          ),
          response: { 200: ListChanges, ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
        },
      },
      async (request) => {
        const body: unknown = request.body;
        const text = typeof body === 'string' ? body : (body as { text?: unknown } | null)?.text;
        const result = await ctx.lists.importText(principalOf(request), request.params.listId, text);
        return { ...result, list: listView(result.list) };
      },
    );
  };
