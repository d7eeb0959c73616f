import { type Compilable, CompiledQuery } from 'kysely';

/**
 * A query compiled once and re-executed with new parameters: Kysely otherwise rebuilds and compiles the query tree
 * on every call, which dominates the cost of the small queries on the hot path. `template` must bind its parameters
 * in the same order as `params` returns them.
 */
export function precompile<Args extends unknown[]>(
  template: Compilable,
  params: (...args: Args) => readonly unknown[],
): (...args: Args) => CompiledQuery {
  const { sql } = template.compile();
  return (...args) => CompiledQuery.raw(sql, params(...args) as unknown[]);
}
