import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../src/storage/database.ts';
import { migrations } from '../src/storage/migrations/index.ts';
import { DecisionRepository, decisionRow } from '../src/storage/repositories/decisions.ts';
import { engines, freshDatabase, tempDir } from './helpers/databases.ts';

/** Migration 0014 indexes the decisions stored before it (a database upgraded in place). */
describe.each(engines)('migration 0014-decision-search backfill (%s)', (engine) => {
  let handle: DatabaseHandle | undefined;
  afterAll(() => handle?.close());

  it('makes the decisions stored before it searchable, except those without content', async () => {
    const { database } = await freshDatabase(engine, tempDir());
    handle = openDatabase(database);
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0014'));
    const schema =
      engine === 'postgres'
        ? (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]!.s
        : undefined;
    const old = new Migrator({
      db: handle.db,
      provider: { getMigrations: async () => before },
      ...(schema && { migrationTableSchema: schema }),
    });
    expect((await old.migrateToLatest()).error).toBeUndefined();

    const rows = [
      ['dec_000001', 'an archived note about albatrosses'],
      ['dec_000002', ''], // redacted before the upgrade
      ['dec_000003', 'Another ALBATROSS, café'],
    ] as const;
    for (const [id, content] of rows) {
      const { key_id: _, ...row } = decisionRow({
        decisionId: id,
        accountId: 'acc_old',
        content,
        contentType: 'text',
        safe: true,
        flagged: false,
        action: 'allow',
        categories: [],
        rawScores: {},
        evaluated: [],
        policyId: 'default',
        policyVersion: 1,
        provider: 'local',
        modelVersion: null,
        latency: 1,
        cost: 0,
        language: 'en',
        metadata: null,
        requestId: null,
        replayOf: null,
        request: {},
        results: null,
        timestamp: '2030-01-01T00:00:00.000Z',
      });
      await handle.db.insertInto('decisions').values(row).execute();
    }
    await migrateToLatest(handle);
    const repository = new DecisionRepository(handle.db, engine);
    const ids = async (q: string) =>
      (await repository.list('acc_old', 10, 0, { q })).map((d) => d.decisionId);
    expect(await ids('albatrosses')).toEqual(['dec_000001']);
    expect(await ids('albatross cafe')).toEqual(['dec_000003']);
    expect(await ids('note')).toEqual(['dec_000001']);
    expect((await repository.list('acc_old', 10, 0)).map((d) => d.keyId)).toEqual([null, null, null]);
  });
});
