import type { Migration } from 'kysely';
import * as core from './0001-core.ts';

/** Every migration, in order. Names sort lexically; add new ones with the next number. */
export const migrations: Record<string, Migration> = {
  '0001-core': core,
};
