import { Type } from 'typebox';
import { Action } from './common.ts';

const ActionCounts = Type.Object({
  allow: Type.Integer(),
  warn: Type.Integer(),
  flag: Type.Integer(),
  block: Type.Integer(),
});

const Ids = Type.Array(Type.String());

/** The report of a backtest or a shadow: what would change, old action → new action. */
export const ChangeReport = Type.Object(
  {
    total: Type.Integer({ description: 'decisions looked at' }),
    replayed: Type.Integer({ description: 'decided again from their stored scores' }),
    changed: Type.Integer({ description: 'replayed with another action' }),
    unchanged: Type.Integer(),
    matrix: Type.Object(
      { allow: ActionCounts, warn: ActionCounts, flag: ActionCounts, block: ActionCounts },
      { description: 'counts by old action (outer) and new action (inner)' },
    ),
    examples: Type.Record(Type.String(), Type.Record(Type.String(), Ids), {
      description: 'example decision IDs by old and new action',
    }),
    notReplayable: Type.Object({
      total: Type.Integer(),
      reasons: Type.Record(Type.String(), Type.Integer(), {
        description:
          'missing_scores, content_redacted, no_item_scores, bank_match_only or provider_scores_missing: counts',
      }),
      examples: Type.Record(Type.String(), Ids),
    }),
    categories: Type.Record(
      Type.String(),
      Type.Object({
        before: Type.Integer({ description: 'triggered under the old decision' }),
        after: Type.Integer({ description: 'triggered under the candidate' }),
        newlyTriggered: Type.Integer(),
        noLongerTriggered: Type.Integer(),
        examples: Ids,
      }),
    ),
  },
  { $id: 'ChangeReport' },
);

const Candidate = Type.Object({
  source: Type.Union([Type.Literal('yaml'), Type.Literal('version'), Type.Literal('policy')]),
  policyId: Type.String(),
  version: Type.Union([Type.Integer(), Type.Null()], { description: 'null for YAML sent with the request' }),
  name: Type.String(),
});

export const Backtest = Type.Object(
  {
    backtestId: Type.String(),
    policyId: Type.String(),
    candidate: Candidate,
    window: Type.Object({
      scope: Type.Union([Type.Literal('policy'), Type.Literal('account')]),
      from: Type.String({ format: 'date-time' }),
      to: Type.String({ format: 'date-time' }),
      limit: Type.Integer(),
    }),
    status: Type.Union([
      Type.Literal('queued'),
      Type.Literal('running'),
      Type.Literal('completed'),
      Type.Literal('failed'),
    ]),
    progress: Type.Object({
      processed: Type.Integer(),
      total: Type.Integer(),
      percentComplete: Type.Number(),
    }),
    report: Type.Optional(Type.Ref('ChangeReport')),
    error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'Backtest' },
);

export const BacktestBody = Type.Object({
  yamlContent: Type.Optional(Type.String({ description: 'the candidate as YAML (or give `version`)' })),
  version: Type.Optional(
    Type.Integer({ minimum: 1, description: 'the candidate: a version of this policy' }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'default: 30 days before `to`' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'default: now (exclusive)' })),
  scope: Type.Optional(
    Type.Union([Type.Literal('policy'), Type.Literal('account')], {
      description: '`policy` (default): decisions made under this policy ID; `account`: all of yours',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'default 100,000' })),
  examples: Type.Optional(Type.Integer({ minimum: 0, maximum: 50, description: 'IDs per cell, default 5' })),
  async: Type.Optional(Type.Boolean({ description: 'run as a background job even when small' })),
});

export const Shadow = Type.Object(
  {
    shadowId: Type.String(),
    policyId: Type.String({ description: 'the live policy' }),
    candidate: Candidate,
    status: Type.Union([Type.Literal('running'), Type.Literal('expired'), Type.Literal('stopped')]),
    until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    stoppedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'Shadow' },
);

export const ShadowBody = Type.Object({
  shadowPolicyId: Type.Optional(Type.String({ description: 'another policy (its current version)' })),
  version: Type.Optional(Type.Integer({ minimum: 1, description: 'a version of this policy' })),
  yamlContent: Type.Optional(Type.String({ description: 'the candidate as YAML' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'stop recording then (≤ 90 days)' })),
});

const Change = <T extends ReturnType<typeof Type.Number> | typeof Action>(t: T) =>
  Type.Object({ from: t, to: t });

const RuleEntry = Type.Object({ category: Type.String(), threshold: Type.Number(), action: Action });

export const PolicyDiff = Type.Object({
  policyId: Type.String(),
  from: Type.Integer(),
  to: Type.Integer(),
  categories: Type.Object({
    added: Type.Array(RuleEntry),
    removed: Type.Array(RuleEntry),
    changed: Type.Array(
      Type.Object({
        category: Type.String(),
        threshold: Type.Optional(Change(Type.Number())),
        action: Type.Optional(Change(Action)),
      }),
    ),
  }),
  fields: Type.Array(Type.Object({ field: Type.String(), from: Type.Unknown(), to: Type.Unknown() })),
  unified: Type.String({ description: 'unified diff of the YAML' }),
});
