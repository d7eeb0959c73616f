import { Type } from 'typebox';

const EventType = Type.Union(
  [
    Type.Literal('decision.created'),
    Type.Literal('decision.flagged'),
    Type.Literal('decision.blocked'),
    Type.Literal('moderation.completed'),
    Type.Literal('moderation.failed'),
    Type.Literal('decision.reviewed'),
    Type.Literal('decision.overturned'),
    Type.Literal('appeal.resolved'),
  ],
  { description: 'Event type (decisions §6.1)' },
);

export const Webhook = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ description: 'https URL receiving signed POSTs' }),
    events: Type.Array(Type.String()),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    disabledReason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the service disabled the endpoint (410 Gone, 5 days of failures)',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    secret: Type.Optional(
      Type.String({
        description:
          'Signing secret (whsec_…); returned only on creation and rotation. Verify X-Service-Signature: ' +
          't=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>',
      }),
    ),
  },
  { $id: 'Webhook' },
);

export const WebhookCreateBody = Type.Object({
  url: Type.String({ description: 'https; must resolve to a public address and accept a TLS connection' }),
  events: Type.Array(EventType, { minItems: 1 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  enabled: Type.Optional(Type.Boolean()),
  requestId: Type.Optional(Type.String({ maxLength: 255, description: 'Idempotency key' })),
});

export const WebhookUpdateBody = Type.Object({
  url: Type.Optional(Type.String()),
  events: Type.Optional(Type.Array(EventType, { minItems: 1 })),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  enabled: Type.Optional(Type.Boolean({ description: 'true re-enables and clears disabledReason' })),
});

export const WebhookTestBody = Type.Object({
  eventType: EventType,
});

export const WebhookTestResult = Type.Object({
  success: Type.Boolean(),
  responseCode: Type.Union([Type.Integer(), Type.Null()], { description: 'null on a network error' }),
  durationMs: Type.Number(),
  eventId: Type.String(),
  error: Type.Optional(Type.String()),
});

export const Delivery = Type.Object({
  id: Type.String(),
  eventId: Type.String({ description: 'Stable across retries (X-Service-Event-Id)' }),
  eventType: Type.String(),
  attempt: Type.Integer({ minimum: 1 }),
  timestamp: Type.String({ format: 'date-time' }),
  status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
  responseCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
});
