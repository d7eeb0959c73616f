import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

export type IdPrefix = 'dec' | 'bat' | 'whk' | 'evt' | 'dlv' | 'key' | 'acc' | 'req' | 'job' | 'vid';

/** Opaque, time-sortable IDs with a type prefix (decisions §4): `dec_01J…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
