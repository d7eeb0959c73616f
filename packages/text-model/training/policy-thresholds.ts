/**
 * The built-in policies' text thresholds, derived from measured precision and recall (issue item 5), and what they
 * do on the functional suite. Printed by eval.ts into the model card; the server's built-in policies
 * (packages/server/src/domain/policies/builtin.ts) carry these numbers and a server test holds them equal.
 *
 * Derived on the pooled calibration splits (datasets and team-authored text; never a test split, never the suite),
 * on a 0.05 grid, as the threshold that maximises F-beta on calibration (beta = how many times recall counts as
 * much as precision), within bounds:
 *   strict      F2 (recall twice as important: a missed harm costs more than a false alarm), within [0.3, default]
 *   default     F1 (balanced), at least 0.5 (a score under 0.5 says the harm is less likely than not)
 *   permissive  F0.5 (precision twice as important), at least 0.7 and at least default
 * The actions (block / flag / warn) stay product choices: they are not measured.
 */
import { readFileSync } from 'node:fs';
import { TEXT_CATEGORIES, type TextCategory } from '../src/index.ts';
import { pick, type Scored } from './eval-authored.ts';
import { prf } from './metrics.ts';
import type { SuiteRow } from './suite-eval.ts';

export const POLICY_NAMES = ['strict', 'default', 'permissive'] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

const GRID = Array.from({ length: 19 }, (_, i) => Math.round((0.05 + i * 0.05) * 100) / 100);
const HARM: TextCategory[] = ['toxicity', 'harassment', 'hate', 'violence', 'sexual', 'self_harm'];

export const RULES: Record<PolicyName, string> = {
  strict: 'the threshold that maximises F2 on calibration, within [0.3, default]',
  default: 'the threshold that maximises F1 on calibration, at least 0.5',
  permissive: 'the threshold that maximises F0.5 on calibration, at least 0.7',
};

/** The grid threshold that maximises F-beta (ties: the lower threshold). */
function bestFBeta(at: (t: number) => { precision: number; recall: number }, beta: number): number {
  let best = 0.5;
  let bestV = -1;
  const b2 = beta * beta;
  for (const t of GRID) {
    const { precision: p, recall: r } = at(t);
    const v = p + r === 0 ? 0 : ((1 + b2) * p * r) / (b2 * p + r);
    if (v > bestV + 1e-12) {
      bestV = v;
      best = t;
    }
  }
  return best;
}

export type DerivedThresholds = Record<PolicyName, Record<TextCategory, number>>;

export function derivePolicyThresholds(scored: Scored[]): DerivedThresholds {
  const out = { strict: {}, default: {}, permissive: {} } as DerivedThresholds;
  for (const cat of TEXT_CATEGORIES) {
    const cal = pick(scored, (e) => e.split === 'calib', cat);
    const at = (t: number) => prf(cal.s, cal.y, t);
    const def = Math.max(0.5, bestFBeta(at, 1));
    out.default[cat] = def;
    out.strict[cat] = Math.min(def, Math.max(0.3, bestFBeta(at, 2)));
    out.permissive[cat] = Math.max(0.7, def, bestFBeta(at, 0.5));
  }
  return out;
}

const f3 = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toFixed(3));
const pct = (a: number, b: number) => (b === 0 ? '–' : ((100 * a) / b).toFixed(1));

/** Suite outcome when every harm category has the given threshold (profanity and spam left out, as the suite does). */
function suiteUnder(rows: SuiteRow[], thr: Record<TextCategory, number>): string {
  let harm = 0;
  let found = 0;
  let benign = 0;
  let passed = 0;
  for (const r of rows) {
    const hit = HARM.some((c) => r.scores[c] >= thr[c]);
    if (r.harmful) {
      harm++;
      if (hit) found++;
    } else {
      benign++;
      if (!hit) passed++;
    }
  }
  return `${pct(found + passed, harm + benign)} % correct, harmful found ${pct(found, harm)} %, benign passed ${pct(passed, benign)} %`;
}

/**
 * One built-in policy's thresholds as the model card states them (the table policySection prints, which a server
 * test holds equal to builtin.ts): what the shipped weights are judged at.
 */
export function cardThresholds(policy: PolicyName): Record<TextCategory, number> {
  const card = readFileSync(new URL('../MODEL_CARD.md', import.meta.url), 'utf8');
  const block = card.split('<!-- builtin-thresholds -->')[1]?.split('<!-- /builtin-thresholds -->')[0];
  if (!block) throw new Error('the model card has no built-in thresholds table');
  const column = 2 + POLICY_NAMES.indexOf(policy);
  const rows = block
    .trim()
    .split('\n')
    .slice(2)
    .map((line) => line.split('|'));
  return Object.fromEntries(rows.map((c) => [c[1]!.trim(), Number.parseFloat(c[column]!)])) as Record<
    TextCategory,
    number
  >;
}

export function policySection(scored: Scored[], suite: SuiteRow[]): DerivedThresholds {
  const d = derivePolicyThresholds(scored);
  console.log('\n### Built-in policy thresholds (derived on calibration splits, checked on test)\n');
  console.log(
    'Rules: ' +
      POLICY_NAMES.map((p) => `\`${p}\` = ${RULES[p]}`).join('; ') +
      '. Each cell: threshold (test precision / recall there). The built-in policies carry these numbers (a server test holds them equal); their actions are product choices.\n',
  );
  console.log('<!-- builtin-thresholds -->');
  console.log('| category | strict | default | permissive |');
  console.log('|---|---|---|---|');
  for (const cat of TEXT_CATEGORIES) {
    const test = pick(scored, (e) => e.split === 'test', cat);
    const cell = (t: number) => {
      const r = prf(test.s, test.y, t);
      return `${t} (${f3(r.precision)} / ${f3(r.recall)})`;
    };
    console.log(`| ${cat} | ${POLICY_NAMES.map((p) => cell(d[p][cat])).join(' | ')} |`);
  }
  console.log('<!-- /builtin-thresholds -->');
  console.log(
    '\nThe functional suite under each built-in policy (harm categories at the policy thresholds):\n',
  );
  const half = Object.fromEntries(TEXT_CATEGORIES.map((c) => [c, 0.5])) as Record<TextCategory, number>;
  console.log(`- every category at 0.5: ${suiteUnder(suite, half)}`);
  for (const p of POLICY_NAMES) console.log(`- \`${p}\`: ${suiteUnder(suite, d[p])}`);
  return d;
}
