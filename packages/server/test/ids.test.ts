import { describe, expect, it } from 'vitest';
import { newId, ulid } from '../src/domain/ids.ts';

describe('IDs', () => {
  it('are prefixed, 26 Crockford base32 characters, and sort in creation order even within a millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => newId('dec'));
    for (const id of ids) expect(id).toMatch(/^dec_[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('encode the time in the first 10 characters, as ULID does, and never go backwards', () => {
    const decode = (id: string) =>
      [...id.slice(0, 10)].reduce((n, c) => n * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(c), 0);
    const future = Date.parse('2099-01-01T00:00:00Z');
    expect(decode(ulid(future))).toBe(future);
    expect(decode(ulid(future - 1000))).toBe(future); // a clock step back keeps the order
    expect(ulid(future + 1) > ulid(future)).toBe(false); // later call, same or earlier ms: still increasing
  });
});
