import { Type } from 'typebox';
import { Action } from './common.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const QueueReason = Type.Union(
  [Type.Literal('category'), Type.Literal('action'), Type.Literal('sample'), Type.Literal('appeal')],
  { description: 'Why the decision is in the queue' },
);

const QueueFilterFields = {
  reason: Type.Optional(QueueReason),
  policyId: Type.Optional(Type.String()),
  action: Type.Optional(Action),
  contentType: Type.Optional(
    Type.Union([
      Type.Literal('text'),
      Type.Literal('image'),
      Type.Literal('video'),
      Type.Literal('multimodal'),
    ]),
  ),
};

export const HumanReview = Type.Object(
  {
    reviewId: Type.String(),
    outcome: Type.Union([Type.Literal('confirm'), Type.Literal('overturn')]),
    action: Action,
    previousAction: Action,
    categories: Type.Array(Type.String(), { description: 'The categories the reviewer found to apply' }),
    note: Nullable(Type.String()),
    reviewer: Type.Object({ keyId: Type.String(), name: Nullable(Type.String()) }),
    direct: Type.Boolean({ description: 'true: reviewed without a queue entry' }),
    appealId: Nullable(Type.String()),
    reviewedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'HumanReview', description: 'The latest human review of a decision' },
);

/** Added to the decision view: `action` stays the automated action. */
export const HumanLayer = {
  effectiveAction: Type.Optional(
    Type.Union([Action], { description: 'The action that applies: the latest review’s, else `action`' }),
  ),
  review: Type.Optional(Nullable(Type.Ref('HumanReview'))),
};

export const QueueItem = Type.Object(
  {
    itemId: Type.String(),
    decisionId: Type.String(),
    reason: QueueReason,
    priority: Type.Integer({ description: '1 for appeals, 0 otherwise; higher first' }),
    policyId: Type.String(),
    action: Action,
    contentType: Type.String(),
    appealId: Nullable(Type.String()),
    lease: Nullable(Type.Object({ keyId: Type.String(), expiresAt: Type.String({ format: 'date-time' }) })),
    createdAt: Type.String({ format: 'date-time' }),
    decision: Type.Optional(Type.Ref('Decision')),
  },
  { $id: 'ReviewQueueItem' },
);

export const QueueQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Default 20, maximum 100' })),
    offset: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    available: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: 'true: hide entries leased to a reviewer',
      }),
    ),
    ...QueueFilterFields,
  },
  { additionalProperties: false },
);

export const ClaimBody = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 1' })),
    leaseSeconds: Type.Optional(Type.Integer({ minimum: 5, maximum: 3600, description: 'Default 600' })),
    ...QueueFilterFields,
  },
  { additionalProperties: false },
);

export const ReviewBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('confirm'), Type.Literal('overturn')]),
    action: Type.Optional(Action),
    categories: Type.Optional(Type.Array(Type.String())),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const AppealBody = Type.Object(
  {
    statement: Type.String({ maxLength: 5000, description: "The user's own words" }),
    userId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const Appeal = Type.Object(
  {
    appealId: Type.String(),
    decisionId: Type.String(),
    status: Type.Union([Type.Literal('open'), Type.Literal('upheld'), Type.Literal('overturned')], {
      description: 'upheld: the decision stands; overturned: its action was changed',
    }),
    statement: Type.String(),
    userId: Nullable(Type.String()),
    reviewId: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    resolvedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'Appeal' },
);

const TriggeredCategory = Type.Object({
  category: Type.String(),
  score: Type.Number(),
  threshold: Type.Number(),
  action: Action,
});

export const Statement = Type.Object(
  {
    decisionId: Type.String(),
    contentType: Type.String(),
    decidedAt: Type.String({ format: 'date-time' }),
    restriction: Type.Object({
      action: Action,
      restricted: Type.Boolean(),
      description: Type.String(),
      automatedAction: Action,
      overturned: Type.Boolean(),
    }),
    ground: Type.Object({
      type: Type.Literal('incompatible_with_terms'),
      explanation: Type.String(),
      policyId: Type.String(),
      policyVersion: Type.Integer(),
      categories: Type.Array(TriggeredCategory),
      reviewerCategories: Type.Array(Type.String()),
      bankMatch: Type.Optional(Type.Object({ bank: Type.String(), label: Nullable(Type.String()) })),
    }),
    automation: Type.Object({
      automatedDetection: Type.Boolean(),
      detectedBy: Type.String({ description: 'The provider, or hash_match' }),
      automatedDecision: Type.Boolean({ description: 'false once a person reviewed the decision' }),
      humanReview: Nullable(
        Type.Object({
          outcome: Type.String(),
          action: Action,
          previousAction: Type.String(),
          reviewedAt: Type.String({ format: 'date-time' }),
          appealId: Nullable(Type.String()),
        }),
      ),
    }),
    redress: Type.Object({
      internalComplaint: Type.Object({
        available: Type.Boolean(),
        how: Type.String(),
        appeal: Nullable(Type.Ref('Appeal')),
      }),
      outOfCourtDisputeSettlement: Type.Boolean(),
      judicialRedress: Type.Boolean(),
    }),
  },
  { $id: 'Statement', description: 'The facts of a DSA Article 17 statement of reasons' },
);
