import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DecisionFilter } from '../../domain/decision-filters.ts';
import { searchCondition } from '../../search/search-index.ts';

/**
 * SQL conditions on the decisions table for a filter. Categories and metadata are JSON text on both engines, so
 * the JSON conditions are written per engine (SQLite's json_each/json_extract, PostgreSQL's jsonb operators).
 */
export function filterConditions(
  engine: 'sqlite' | 'postgres',
  filter: DecisionFilter,
): RawBuilder<SqlBool>[] {
  const conditions: RawBuilder<SqlBool>[] = [];
  if (filter.action) conditions.push(sql<SqlBool>`decisions.action = ${filter.action}`);
  if (filter.policyId) conditions.push(sql<SqlBool>`decisions.policy_id = ${filter.policyId}`);
  if (filter.contentType) conditions.push(sql<SqlBool>`decisions.content_type = ${filter.contentType}`);
  if (filter.from) conditions.push(sql<SqlBool>`decisions.created_at >= ${filter.from}`);
  if (filter.to) conditions.push(sql<SqlBool>`decisions.created_at < ${filter.to}`);
  if (filter.keyId) conditions.push(sql<SqlBool>`decisions.key_id = ${filter.keyId}`);
  if (filter.q) conditions.push(searchCondition(engine, filter.q));
  if (filter.userId) {
    conditions.push(
      engine === 'postgres'
        ? sql<SqlBool>`(decisions.metadata::jsonb ->> 'userId') = ${filter.userId}`
        : sql<SqlBool>`json_extract(decisions.metadata, '$.userId') = ${filter.userId}`,
    );
  }
  if (filter.category) {
    conditions.push(
      engine === 'postgres'
        ? sql<SqlBool>`decisions.categories::jsonb @> ${JSON.stringify([{ category: filter.category, triggered: true }])}::jsonb`
        : sql<SqlBool>`exists (select 1 from json_each(decisions.categories) as c
            where json_extract(c.value, '$.category') = ${filter.category}
              and json_extract(c.value, '$.triggered') = 1)`,
    );
  }
  return conditions;
}
