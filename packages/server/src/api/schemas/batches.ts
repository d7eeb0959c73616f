import { Type } from 'typebox';
import { ContentWarnings } from './checks.ts';
import { Action, Metadata } from './common.ts';

const BatchItem = Type.Object({
  id: Type.String({ description: 'Your ID of the item; unique within the batch' }),
  content: Type.String(),
  contentType: Type.Optional(
    Type.Union([Type.Literal('text'), Type.Literal('image'), Type.Literal('video')]),
  ),
  language: Type.Optional(Type.String()),
  metadata: Type.Optional(Metadata),
  doNotStore: Type.Optional(
    Type.Boolean({
      description:
        'true: the decision is stored (and sent in events) without its content and the text of its highlights; ' +
        'the answer still carries them',
    }),
  ),
});

export const BatchBody = Type.Object({
  policyId: Type.String(),
  items: Type.Array(BatchItem, { minItems: 1, maxItems: 100 }),
  requestId: Type.Optional(Type.String({ maxLength: 255, description: 'Idempotency key' })),
});

export const AsyncBatchBody = Type.Object({
  policyId: Type.String(),
  items: Type.Array(BatchItem, { minItems: 1, maxItems: 100 }),
  webhookUrl: Type.String({
    description: 'https URL that receives moderation.completed, signed with the account signing secret',
  }),
  requestId: Type.Optional(Type.String({ maxLength: 255, description: 'Idempotency key' })),
});

export const BatchItemResult = Type.Object({
  id: Type.String(),
  safe: Type.Boolean(),
  flagged: Type.Boolean(),
  action: Action,
  decisionId: Type.String(),
});

export const BatchResult = Type.Object({
  items: Type.Array(Type.Object({ ...BatchItemResult.properties, warnings: Type.Optional(ContentWarnings) })),
});

export const BatchAccepted = Type.Object({
  batchId: Type.String(),
  status: Type.Literal('processing'),
  totalItems: Type.Integer(),
});

export const BatchStatus = Type.Object({
  batchId: Type.String(),
  status: Type.Union([Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')]),
  totalItems: Type.Integer(),
  processedItems: Type.Integer(),
  policyId: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  items: Type.Optional(Type.Array(BatchItemResult, { description: 'When completed' })),
  error: Type.Optional(
    Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'e.g. the item at fault: index, id, code',
        }),
      ),
    }),
  ),
});
