import type { Policy } from '../../domain/policies/policy.ts';
import type { Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import type { PoliciesTable, PolicyVersionsTable } from '../schema.ts';

export interface StoredPolicyBody {
  description: string | null;
  categories: Policy['categories'];
  banks?: Policy['banks'];
  lists?: Policy['lists'];
  routing?: Policy['routing'];
}

function toPolicy(row: PoliciesTable): Policy {
  const body = fromJson<StoredPolicyBody>(row.categories);
  return {
    policyId: row.policy_id,
    name: row.name,
    description: body.description,
    categories: body.categories,
    ...(body.banks && { banks: body.banks }),
    ...(body.lists && { lists: body.lists }),
    routing: body.routing ?? null,
    version: row.version,
    builtin: false,
    accountId: row.account_id,
    yaml: row.yaml,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type PolicySaveResult =
  /** `previous`: the policy as it was before, read in the same transaction (null when created). */
  | { kind: 'created' | 'updated' | 'unchanged'; policy: Policy; previous: Policy | null }
  | { kind: 'conflict' };

/** One stored version of a policy (the `policy_versions` row). */
export interface PolicyVersionRecord {
  policyId: string;
  version: number;
  accountId: string;
  name: string;
  yaml: string;
  body: StoredPolicyBody;
  createdAt: string;
}

function toVersion(row: PolicyVersionsTable): PolicyVersionRecord {
  return {
    policyId: row.policy_id,
    version: row.version,
    accountId: row.account_id,
    name: row.name,
    yaml: row.yaml,
    body: fromJson<StoredPolicyBody>(row.categories),
    createdAt: row.created_at,
  };
}

export class PolicyRepository {
  constructor(
    private readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  async get(policyId: string): Promise<Policy | null> {
    const row = await this.db
      .selectFrom('policies')
      .selectAll()
      .where('policy_id', '=', policyId)
      .executeTakeFirst();
    return row ? toPolicy(row) : null;
  }

  async listForAccount(accountId: string): Promise<Policy[]> {
    const rows = await this.db
      .selectFrom('policies')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('policy_id')
      .execute();
    return rows.map(toPolicy);
  }

  /**
   * Creates the policy or appends a new version of the caller's own policy, in one transaction. Returns
   * `conflict` when the ID belongs to another account, or exists and `createOnly` is set.
   */
  async save(
    input: Pick<
      Policy,
      'policyId' | 'name' | 'description' | 'categories' | 'banks' | 'lists' | 'routing' | 'yaml'
    > & {
      accountId: string;
    },
    options: { createOnly: boolean; now: string },
  ): Promise<PolicySaveResult> {
    return this.db.transaction().execute(async (trx) => {
      let query = trx.selectFrom('policies').selectAll().where('policy_id', '=', input.policyId);
      // SQLite has no FOR UPDATE; its single writer lock already serialises the transaction.
      if (this.engine === 'postgres') query = query.forUpdate();
      const existing = await query.executeTakeFirst();
      if (existing && (existing.account_id !== input.accountId || options.createOnly))
        return { kind: 'conflict' };
      // the same YAML again is not a new version (issue 18)
      const previous = existing ? toPolicy(existing) : null;
      if (previous && existing!.yaml === input.yaml) return { kind: 'unchanged', policy: previous, previous };
      // a deleted policy's versions stay (decisions keep theirs): an ID used again continues their numbering
      const last = existing
        ? null
        : await trx
            .selectFrom('policy_versions')
            .select((eb) => eb.fn.max('version').as('version'))
            .where('policy_id', '=', input.policyId)
            .executeTakeFirst();
      const version = existing ? existing.version + 1 : Number(last?.version ?? 0) + 1;
      const createdAt = existing?.created_at ?? options.now;
      const body = toJson({
        description: input.description,
        categories: input.categories,
        ...(input.banks && { banks: input.banks }),
        ...(input.lists && { lists: input.lists }),
        ...(input.routing && { routing: input.routing }),
      });
      const values = {
        policy_id: input.policyId,
        account_id: input.accountId,
        name: input.name,
        yaml: input.yaml,
        categories: body,
        version,
        created_at: createdAt,
        updated_at: options.now,
      };
      if (existing) {
        await trx.updateTable('policies').set(values).where('policy_id', '=', input.policyId).execute();
      } else {
        const inserted = await trx
          .insertInto('policies')
          .values(values)
          .onConflict((oc) => oc.column('policy_id').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return { kind: 'conflict' };
      }
      await trx
        .insertInto('policy_versions')
        .values({
          policy_id: input.policyId,
          version,
          account_id: input.accountId,
          name: input.name,
          yaml: input.yaml,
          categories: body,
          created_at: options.now,
        })
        .execute();
      return {
        kind: existing ? 'updated' : 'created',
        policy: toPolicy(values),
        previous,
      };
    });
  }

  /** The versions of a policy that `accountId` wrote, oldest first (a deleted policy's stay). */
  async listVersions(policyId: string, accountId: string): Promise<PolicyVersionRecord[]> {
    const rows = await this.db
      .selectFrom('policy_versions')
      .selectAll()
      .where('policy_id', '=', policyId)
      .where('account_id', '=', accountId)
      .orderBy('version')
      .execute();
    return rows.map(toVersion);
  }

  async getVersion(policyId: string, version: number): Promise<PolicyVersionRecord | null> {
    const row = await this.db
      .selectFrom('policy_versions')
      .selectAll()
      .where('policy_id', '=', policyId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row ? toVersion(row) : null;
  }

  /**
   * Deletes the live policy of `accountId` unless `inUse` (run in the same transaction) names a reason; its versions
   * stay. Returns false when there was nothing of that account's to delete.
   */
  async delete(policyId: string, accountId: string, inUse: (trx: Db) => Promise<void>): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await inUse(trx);
      const deleted = await trx
        .deleteFrom('policies')
        .where('policy_id', '=', policyId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(deleted.numDeletedRows) > 0;
    });
  }
}
