import { Type } from 'typebox';
import { SCOPES } from '../../domain/principal.ts';
import { PolicyRouting } from './common.ts';

const PolicyCategory = Type.Object({
  threshold: Type.Number({ minimum: 0, maximum: 1 }),
  action: Type.Union([
    Type.Literal('allow'),
    Type.Literal('warn'),
    Type.Literal('flag'),
    Type.Literal('block'),
  ]),
});

export const Policy = Type.Object(
  {
    policyId: Type.String(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    categories: Type.Record(Type.String(), PolicyCategory),
    banks: Type.Optional(
      Type.Array(
        Type.Object({
          bank: Type.String(),
          action: Type.String(),
          maxDistance: Type.Integer({ description: 'PDQ bits of 256 (default 31)' }),
        }),
        { description: 'Hash banks screened before any model runs (extension)' },
      ),
    ),
    lists: Type.Optional(
      Type.Array(
        Type.Object({
          list: Type.String(),
          action: Type.Optional(Type.String()),
          caps: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]))),
        }),
        { description: 'Match lists applied to text (extension)' },
      ),
    ),
    routing: Type.Optional(PolicyRouting),
    version: Type.Integer(),
    builtin: Type.Boolean(),
    yamlContent: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Policy' },
);

export const PolicyBody = Type.Object({
  policyId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  yamlContent: Type.String({ description: 'YAML with `name` and `categories` (≤ 64 KB)' }),
});

const RateLimit = Type.Object({
  perMinute: Type.Integer({ minimum: 1 }),
  burstPerSecond: Type.Integer({ minimum: 1 }),
});

export const ApiKey = Type.Object(
  {
    id: Type.String(),
    prefix: Type.String(),
    last4: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    accountId: Type.String(),
    expiresAt: Type.Union([Type.String(), Type.Null()]),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
    lastUsedAt: Type.Union([Type.String(), Type.Null()], {
      description: 'When the key was last used (to the minute); null if never',
    }),
    rateLimit: Type.Union([RateLimit, Type.Null()]),
    createdAt: Type.String(),
    key: Type.Optional(Type.String({ description: 'The key itself; returned only on creation' })),
  },
  { $id: 'ApiKey' },
);

export const KeyBody = Type.Object({
  name: Type.String(),
  scopes: Type.Array(Type.String(), {
    description: SCOPES.join(', '),
  }),
  accountId: Type.Optional(Type.String()),
  expiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  rateLimit: Type.Optional(Type.Union([RateLimit, Type.Null()])),
});

export const KeyUpdateBody = Type.Object({
  name: Type.Optional(Type.String()),
  rateLimit: Type.Optional(Type.Union([RateLimit, Type.Null()])),
});

export const Account = Type.Object(
  {
    accountId: Type.String(),
    name: Type.String(),
    monthlyQuota: Type.Union([Type.Integer(), Type.Null()]),
    trialEndsAt: Type.Union([Type.String(), Type.Null()]),
    isOperator: Type.Boolean(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    signingSecret: Type.Optional(Type.String()),
  },
  { $id: 'Account' },
);

export const AccountBody = Type.Object({
  name: Type.Optional(Type.String()),
  monthlyQuota: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  trialEndsAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
});
