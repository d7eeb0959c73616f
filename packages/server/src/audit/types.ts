import type { Principal } from '../domain/principal.ts';

/** Who did it: an API key (directly or through a console session of it), or the operator's CLI on the database. */
export type AuditActor =
  | { kind: 'key'; keyId: string; name: string | null; accountId: string }
  | { kind: 'operator'; keyId: null; name: 'verdict CLI'; accountId: null };

/** What it was done to. `accountId` is the account the resource belongs to, which is whose log the entry joins. */
export interface AuditTarget {
  type: string;
  id: string;
  accountId: string;
}

export interface AuditEntry {
  id: string;
  accountId: string;
  actor: AuditActor;
  /** `<target type>.<verb>`, e.g. `key.revoked`, `policy.updated`, `decision.reviewed`. */
  action: string;
  target: { type: string; id: string };
  /** The resource's public view before and after (secrets never included); null where it did not exist. */
  before: unknown;
  after: unknown;
  createdAt: string;
}

/** Anything that records audit entries: the services that change things depend on this, not on the log itself. */
export interface AuditSink {
  record(
    by: Principal | null,
    action: string,
    target: AuditTarget,
    change?: { before?: unknown; after?: unknown },
  ): Promise<void>;
}

export function actorOf(principal: Principal | null): AuditActor {
  if (!principal) return { kind: 'operator', keyId: null, name: 'verdict CLI', accountId: null };
  return {
    kind: 'key',
    keyId: principal.keyId,
    name: principal.keyName ?? null,
    accountId: principal.accountId,
  };
}
