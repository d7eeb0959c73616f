import { describe, expect, it } from 'vitest';
import { loadTextModel } from '../src/index.ts';
import { loadSuite } from '../training/authored.ts';
import { benignFlags } from '../training/suite-flags.ts';

describe('suite-flags (counts of flagged benign suite cases per phenomenon)', () => {
  it('counts every benign case of the language once, flagged as the suite counts it (a harm category at 0.5)', () => {
    const model = loadTextModel();
    const flags = benignFlags(model, 'it');
    // computed here without the suite evaluator: benign = no label but profanity; flagged = one of the six harm
    // categories at 0.5 or more
    const benign = loadSuite().filter((x) => x.lang === 'it' && x.labels.every((l) => l === 'profanity'));
    const harm = ['toxicity', 'harassment', 'hate', 'violence', 'sexual', 'self_harm'] as const;
    const flaggedHere = benign.filter((x) => {
      const s = model.classify(x.text, { language: 'it' }).scores;
      return harm.some((c) => s[c] >= 0.5);
    });
    const values = [...flags.values()];
    expect(values.reduce((a, e) => a + e.n, 0)).toBe(benign.length);
    expect(benign.length).toBeGreaterThan(100);
    expect(values.reduce((a, e) => a + e.flagged, 0)).toBe(flaggedHere.length);
    for (const [phenomenon, e] of flags) {
      expect(e.n, phenomenon).toBe(benign.filter((x) => x.phenomenon === phenomenon).length);
      for (const k of Object.values(e.byCategory)) expect(k, phenomenon).toBeLessThanOrEqual(e.flagged);
      if (e.flagged > 0) expect(Object.keys(e.byCategory).length, phenomenon).toBeGreaterThan(0);
    }
    expect(flags.has('threat_direct')).toBe(false);
  });
});
