import { Type } from 'typebox';

/** An audit log entry (GET /v1/audit). */
export const AuditEntry = Type.Object(
  {
    id: Type.String(),
    accountId: Type.String({ description: 'The account whose resource the action concerned' }),
    actor: Type.Object({
      kind: Type.Union([Type.Literal('key'), Type.Literal('operator')], {
        description: '`key`: an API key or a console session of one; `operator`: the verdict CLI',
      }),
      keyId: Type.Union([Type.String(), Type.Null()]),
      name: Type.Union([Type.String(), Type.Null()]),
      accountId: Type.Union([Type.String(), Type.Null()]),
    }),
    action: Type.String({ description: '`<target type>.<verb>`, e.g. key.revoked, policy.updated' }),
    target: Type.Object({ type: Type.String(), id: Type.String() }),
    before: Type.Unknown({ description: 'The public view before the action; null when it did not exist' }),
    after: Type.Unknown({ description: 'The public view after the action; null when it no longer exists' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AuditEntry' },
);
