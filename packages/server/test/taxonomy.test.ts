import { SUPPORTED_LANGUAGES, TEXT_CATEGORIES } from '@verdict/text-model';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, TEXT_CATEGORY_NAMES } from '../src/domain/taxonomy.ts';

// The API's lists are the contract (interface §4.1, decisions §2); the bundled model must cover exactly them.
describe('taxonomy', () => {
  it("the API's text categories and languages are the bundled text model's", () => {
    expect([...TEXT_CATEGORY_NAMES]).toEqual([...TEXT_CATEGORIES]);
    expect([...LANGUAGES]).toEqual([...SUPPORTED_LANGUAGES]);
  });
});
