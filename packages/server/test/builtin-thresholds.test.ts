import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { REPO } from './helpers/docs.ts';

/**
 * The built-in policies' text thresholds are derived from the model's measured precision and recall
 * (packages/text-model/training/policy-thresholds.ts, printed by `npm run eval` into the model card). A retrained
 * model whose card derives other thresholds fails here until builtin.ts carries them.
 */
const card = fs.readFileSync(path.join(REPO, 'packages/text-model/MODEL_CARD.md'), 'utf8');

function derivedTable(): Record<string, Record<string, number>> {
  const block = card.split('<!-- builtin-thresholds -->')[1]?.split('<!-- /builtin-thresholds -->')[0];
  if (!block) throw new Error('the model card has no built-in thresholds table');
  const lines = block.trim().split('\n');
  const policies = lines[0]!
    .split('|')
    .slice(2, -1)
    .map((c) => c.trim());
  const out: Record<string, Record<string, number>> = {};
  for (const line of lines.slice(2)) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const category = cells[0]!;
    policies.forEach((p, i) => {
      out[p] ??= {};
      out[p][category] = Number.parseFloat(cells[i + 1]!);
    });
  }
  return out;
}

describe('built-in policy thresholds', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('are the ones the model card derives for the model that runs', async () => {
    const derived = derivedTable();
    expect(Object.keys(derived)).toEqual(['strict', 'default', 'permissive']);
    for (const [policyId, thresholds] of Object.entries(derived)) {
      expect(Object.keys(thresholds)).toHaveLength(8);
      const res = await t.request('GET', `/v1/policies/${policyId}`);
      expect(res.status).toBe(200);
      const categories = res.body.categories as Record<string, { threshold: number }>;
      for (const [category, threshold] of Object.entries(thresholds)) {
        // permissive leaves profanity out on purpose (it tolerates adult language)
        if (!categories[category]) {
          expect(`${policyId}.${category}`).toBe('permissive.profanity');
          continue;
        }
        expect(categories[category].threshold, `${policyId}.${category}`).toBe(threshold);
      }
    }
  });
});
