import { Type } from 'typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code, e.g. POLICY_NOT_FOUND' }),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      requestId: Type.String(),
    }),
  },
  { $id: 'Error', description: 'Every error has this shape (decisions §9).' },
);

export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref('Error')])) as Record<
    number,
    ReturnType<typeof Type.Ref>
  >;

export const Highlight = Type.Object({ start: Type.Integer(), end: Type.Integer(), text: Type.String() });

export const CategoryResult = Type.Object({
  category: Type.String(),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  threshold: Type.Number({ minimum: 0, maximum: 1 }),
  triggered: Type.Boolean(),
  evaluated: Type.Boolean({
    description: 'false when the provider cannot judge this category for this content',
  }),
  highlights: Type.Optional(Type.Array(Highlight, { description: 'Spans of a text that contributed most' })),
});

export const Action = Type.Union([
  Type.Literal('allow'),
  Type.Literal('warn'),
  Type.Literal('flag'),
  Type.Literal('block'),
]);

export const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free-form JSON object, ≤ 8 KB',
});

export const Pagination = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Default 20, maximum 100' })),
  offset: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Default 0' })),
});

export const PolicyRouting = Type.Object(
  {
    provider: Type.String({ description: 'The provider judging text (default local)' }),
    fallback: Type.Array(Type.String(), {
      description: 'Tried in order when it fails; local = the bundled model',
    }),
    escalate: Type.Union([
      Type.Object({
        provider: Type.String(),
        when: Type.Literal('uncertain'),
        band: Type.Number({ description: 'Local scores within this distance of a threshold are escalated' }),
      }),
      Type.Null(),
    ]),
  },
  { description: 'Which providers judge text under the policy (absent: local alone)' },
);

export const ProviderAttempts = Type.Array(
  Type.Object({
    provider: Type.String(),
    role: Type.String({ description: 'local, primary, escalation or fallback' }),
    outcome: Type.String({ description: 'answered, reused, failed or skipped' }),
    reason: Type.String(),
    latency: Type.Optional(Type.Number()),
    cost: Type.Optional(Type.Number()),
    error: Type.Optional(Type.String()),
  }),
  { description: 'Which providers were asked and why (only when the policy routes beyond local)' },
);
