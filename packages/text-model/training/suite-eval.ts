/**
 * The team's functional suite (suite/<lang>.jsonl, evaluation only): per phenomenon and per language.
 *
 * A case is "harmful" when it names any category but profanity; the model calls it harmful when any of those
 * categories scores ≥ 0.5. "Hate cases" are the hate phenomena and their contrasts (negation, counter-speech,
 * quotation, identity mentions, reclaimed terms, abuse of non-protected groups), judged on the hate score alone,
 * as functional hate tests are. Category agreement: for each category, whether (score ≥ 0.5) equals (labelled).
 */
import { TEXT_CATEGORIES, type TextCategory, type TextModel } from '../src/index.ts';
import { type AuthoredItem, loadSuite } from './authored.ts';

export const HARM: TextCategory[] = ['toxicity', 'harassment', 'hate', 'violence', 'sexual', 'self_harm'];
const CATS = TEXT_CATEGORIES.filter((c) => c !== 'spam');
export const HATE_CONTRASTS = new Set([
  'negation',
  'counter_speech',
  'quotation_condemn',
  'identity_positive',
  'identity_neutral',
  'reclaimed_term',
  'abuse_nonprotected',
]);

export interface SuiteRow {
  item: AuthoredItem;
  scores: Record<TextCategory, number>;
  harmful: boolean;
  predHarmful: boolean;
  /** for hate cases: expected and predicted hate */
  hateCase: boolean;
  catAgree: number;
}

export function scoreSuite(model: TextModel, items = loadSuite(), language?: 'declared' | 'en'): SuiteRow[] {
  return items.map((item) => {
    // 'en': sent without `language`, as the API does it (English by default, not declared)
    const scores = model.classify(
      item.text,
      language === 'en' ? { language: 'en', declared: false } : { language: item.lang },
    ).scores;
    const harmful = item.labels.some((l) => (HARM as string[]).includes(l));
    const predHarmful = HARM.some((c) => scores[c] >= 0.5);
    const hateCase = item.phenomenon.startsWith('hate_') || HATE_CONTRASTS.has(item.phenomenon);
    let agree = 0;
    for (const c of CATS) if (scores[c] >= 0.5 === item.labels.includes(c)) agree++;
    return { item, scores, harmful, predHarmful, hateCase, catAgree: agree / CATS.length };
  });
}

const pct = (a: number, b: number) => (b === 0 ? '–' : ((100 * a) / b).toFixed(1));

interface Tally {
  n: number;
  ok: number;
  harm: number;
  harmOk: number;
  benign: number;
  benignOk: number;
  hate: number;
  hateOk: number;
  hateBenign: number;
  hateBenignOk: number;
  agree: number;
}

function tally(rows: SuiteRow[]): Tally {
  const t: Tally = {
    n: 0,
    ok: 0,
    harm: 0,
    harmOk: 0,
    benign: 0,
    benignOk: 0,
    hate: 0,
    hateOk: 0,
    hateBenign: 0,
    hateBenignOk: 0,
    agree: 0,
  };
  for (const r of rows) {
    t.n++;
    const ok = r.harmful === r.predHarmful;
    if (ok) t.ok++;
    if (r.harmful) {
      t.harm++;
      if (ok) t.harmOk++;
    } else {
      t.benign++;
      if (ok) t.benignOk++;
    }
    if (r.hateCase) {
      const exp = r.item.labels.includes('hate');
      const got = r.scores.hate >= 0.5;
      t.hate++;
      if (exp === got) t.hateOk++;
      if (!exp) {
        t.hateBenign++;
        if (!got) t.hateBenignOk++;
      }
    }
    t.agree += r.catAgree;
  }
  return t;
}

/** Markdown tables: overall, per language, per phenomenon. */
export function suiteTables(rows: SuiteRow[]): string {
  const out: string[] = [];
  const head =
    '| n | harmful/benign correct | harmful found | benign passed | hate cases correct | non-hateful hate cases passed | category agreement |';
  const line = (label: string, t: Tally) =>
    `| ${label} | ${t.n} | ${pct(t.ok, t.n)} | ${pct(t.harmOk, t.harm)} | ${pct(t.benignOk, t.benign)} | ${pct(t.hateOk, t.hate)} | ${pct(t.hateBenignOk, t.hateBenign)} | ${pct(t.agree, t.n)} |`;
  out.push(`| set ${head}`, '|---|---|---|---|---|---|---|---|');
  out.push(line('all', tally(rows)));
  const langs = [...new Set(rows.map((r) => r.item.lang))].sort();
  for (const l of langs) out.push(line(l, tally(rows.filter((r) => r.item.lang === l))));
  out.push('', `| phenomenon ${head}`, '|---|---|---|---|---|---|---|---|');
  const phen = [...new Set(rows.map((r) => r.item.phenomenon))].sort();
  for (const p of phen) out.push(line(p, tally(rows.filter((r) => r.item.phenomenon === p))));
  return out.join('\n');
}

/** One-line summary for training logs. */
export function suiteSummary(rows: SuiteRow[]): string {
  const t = tally(rows);
  const langs = [...new Set(rows.map((r) => r.item.lang))].sort();
  const per = langs.map((l) => {
    const x = tally(rows.filter((r) => r.item.lang === l));
    return `${l} ${pct(x.ok, x.n)}`;
  });
  return `suite n=${t.n}: correct ${pct(t.ok, t.n)} % (harmful found ${pct(t.harmOk, t.harm)}, benign passed ${pct(t.benignOk, t.benign)}, hate cases ${pct(t.hateOk, t.hate)}, non-hateful ${pct(t.hateBenignOk, t.hateBenign)}) | ${per.join(', ')}`;
}
