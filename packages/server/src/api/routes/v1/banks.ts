import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_IMPORT_BYTES } from '../../../banks/limits.ts';
import { bankItemView, bankView } from '../../../banks/service.ts';
import type { AppContext } from '../../../context.ts';
import { parsePagination } from '../../pagination.ts';
import { principalOf } from '../../plugins/auth.ts';
import { BankCreateBody, BankImportResult, BankItemBody } from '../../schemas/banks.ts';
import { errorResponses } from '../../schemas/common.ts';

const Params = Type.Object({ bankId: Type.String({ description: 'The bank ID (bnk_…) or name' }) });
const ItemParams = Type.Object({ bankId: Type.String(), itemId: Type.String() });
const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

/** Hash banks (issue 20): known images matched by PDQ, SHA-256 or MD5 before any model runs. */
export const bankRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    // A hash list arrives as CSV text (HMA / ThreatExchange exports); only the import route reads it.
    app.addContentTypeParser(
      'text/csv',
      { parseAs: 'string', bodyLimit: MAX_IMPORT_BYTES },
      (_r, body, done) => done(null, body),
    );

    app.post(
      '/v1/banks',
      {
        config: { idempotent: true, scope: 'banks:write' },
        schema: {
          tags: ['banks'],
          summary: 'Create a hash bank; policies refer to it by name',
          body: BankCreateBody,
          response: { 201: Type.Ref('Bank'), ...errorResponses(400, 401, 403, 409, 422, 429) },
        },
      },
      async (request, reply) => {
        const bank = await ctx.banks.create(principalOf(request), (request.body ?? {}) as never);
        return reply.code(201).send(bankView(bank));
      },
    );

    app.get(
      '/v1/banks',
      {
        schema: {
          tags: ['banks'],
          summary: "List the account's banks",
          response: {
            200: Type.Object({ banks: Type.Array(Type.Ref('Bank')) }),
            ...errorResponses(401, 403, 429),
          },
        },
      },
      async (request) => ({ banks: (await ctx.banks.list(principalOf(request))).map(bankView) }),
    );

    app.get(
      '/v1/banks/:bankId',
      {
        schema: {
          tags: ['banks'],
          summary: 'Get a bank',
          params: Params,
          response: { 200: Type.Ref('Bank'), ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) => bankView(await ctx.banks.get(principalOf(request), request.params.bankId)),
    );

    app.delete(
      '/v1/banks/:bankId',
      {
        schema: {
          tags: ['banks'],
          summary: 'Delete a bank and its items (policies naming it then match nothing in it)',
          params: Params,
          response: { 200: Deleted, ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) => {
        const bank = await ctx.banks.delete(principalOf(request), request.params.bankId);
        return { id: bank.id, deleted: true as const };
      },
    );

    app.post(
      '/v1/banks/:bankId/items',
      {
        config: { idempotent: true, scope: 'banks:write' },
        schema: {
          tags: ['banks'],
          summary: 'Add an image (hashed with PDQ, SHA-256 and MD5) or a hash, with a label',
          params: Params,
          body: BankItemBody,
          response: { 201: Type.Ref('BankItem'), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
        },
      },
      async (request, reply) => {
        const item = await ctx.banks.addItem(
          principalOf(request),
          request.params.bankId,
          (request.body ?? {}) as never,
        );
        return reply.code(201).send(bankItemView(item));
      },
    );

    app.get(
      '/v1/banks/:bankId/items',
      {
        schema: {
          tags: ['banks'],
          summary: "A bank's items, newest first (limit default 20, max 100; offset)",
          params: Params,
          querystring: Type.Object({
            limit: Type.Optional(Type.String()),
            offset: Type.Optional(Type.String()),
          }),
          response: {
            200: Type.Object({
              items: Type.Array(Type.Ref('BankItem')),
              limit: Type.Integer(),
              offset: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
            ...errorResponses(401, 403, 404, 422, 429),
          },
        },
      },
      async (request) => {
        const page = parsePagination(request.query);
        const { items, hasMore } = await ctx.banks.listItems(
          principalOf(request),
          request.params.bankId,
          page,
        );
        return { items: items.map(bankItemView), ...page, hasMore };
      },
    );

    app.delete(
      '/v1/banks/:bankId/items/:itemId',
      {
        schema: {
          tags: ['banks'],
          summary: 'Remove an item from a bank',
          params: ItemParams,
          response: { 200: Deleted, ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) => {
        await ctx.banks.deleteItem(principalOf(request), request.params.bankId, request.params.itemId);
        return { id: request.params.itemId, deleted: true as const };
      },
    );

    app.post(
      '/v1/banks/:bankId/import',
      {
        config: { scope: 'banks:write' },
        bodyLimit: MAX_IMPORT_BYTES,
        schema: {
          tags: ['banks'],
          summary:
            'Import a hash list as CSV (Content-Type: text/csv): ThreatExchange/HMA exports (signal_type,signal_str,…), ' +
            'a `hash[,hash_type][,label]` header, or one hex hash per line; at most 100,000 rows and 16 MB',
          params: Params,
          body: Type.Object(
            { csv: Type.String({ description: 'The CSV text' }) },
            { description: 'JSON `{ csv }`, or the CSV itself with Content-Type: text/csv' },
          ),
          response: { 200: BankImportResult, ...errorResponses(400, 401, 403, 404, 415, 422, 429) },
        },
      },
      async (request) => {
        // text/csv arrives as a string; JSON as { csv }
        const body: unknown = request.body;
        const csv = typeof body === 'string' ? body : (body as { csv?: unknown } | null)?.csv;
        const result = await ctx.banks.importCsv(principalOf(request), request.params.bankId, csv);
        return { ...result, bank: bankView(result.bank) };
      },
    );
  };
