/** Loads every dataset, maps its labels onto the taxonomy and assigns fixed train / calib / test splits. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SupportedLanguage } from '../src/constants.ts';
import { hashString } from '../src/hash.ts';
import { generated } from './augment.ts';
import { type AuthoredItem, authoredKey, labelVector, loadAuthoredTraining, loadSuite } from './authored.ts';
import { emailText, parsePyList, readCsvGz, readGz } from './csv.ts';

export type Split = 'train' | 'calib' | 'test' | 'eval';

export interface Example {
  text: string;
  lang: SupportedLanguage;
  source: string;
  split: Split;
  /** per head: 1, 0, or -1 (unknown) in TEXT_CATEGORIES order */
  labels: Int8Array;
  /** for multi-class sources, e.g. C-SSRS level or Davidson class */
  group?: string;
  /** authored template expansions: the template (its expansions share a split and an out-of-fold fold) */
  template?: string;
}

const T = 0;
const H = 1;
const HA = 2;
const V = 3;
const S = 4;
const SH = 5;
const P = 6;
const SP = 7;

function lab(set: Partial<Record<number, number>>, base = -1): Int8Array {
  const l = new Int8Array(8).fill(base);
  for (const [k, v] of Object.entries(set)) l[Number(k)] = v as number;
  return l;
}

/** All-clean label: the text is neither offensive nor spam (used for "not offensive" rows). */
function clean(extra: Partial<Record<number, number>> = {}): Int8Array {
  return lab({ [T]: 0, [H]: 0, [HA]: 0, [V]: 0, [S]: 0, [SH]: 0, [P]: 0, [SP]: 0, ...extra });
}

/** Deterministic split by text hash: 70 % train, 15 % calibration, 15 % test. */
export function hashSplit(key: string, trainPct = 70, calibPct = 15): Split {
  const h = (hashString(key) >>> 0) % 100;
  return h < trainPct ? 'train' : h < trainPct + calibPct ? 'calib' : 'test';
}

/** The split of a team-authored text: by its template when it has one, so a template's expansions stay together. */
export function authoredSplit(a: Pick<AuthoredItem, 'text' | 'template'>): Split {
  return hashSplit(`authored:${a.template ?? a.text}`);
}

export function datasetsDir(): string {
  if (process.env.VERDICT_DATASETS_DIR) return resolve(process.env.VERDICT_DATASETS_DIR);
  const here = dirname(fileURLToPath(import.meta.url));
  const repo = resolve(here, '../../..');
  return resolve(repo, '../shared/datasets');
}

function olidKey(t: string): string {
  return t
    .toLowerCase()
    .replace(/@user/g, '')
    .replace(/\burl\b/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .slice(0, 80);
}

export function loadExamples(dir = datasetsDir(), opts: { excludeGpl?: boolean } = {}): Example[] {
  if (!existsSync(dir)) throw new Error(`datasets not found at ${dir} (set VERDICT_DATASETS_DIR)`);
  const rude = rudeness(dir);
  const out: Example[] = [];
  const push = (e: Example) => {
    if (e.text.trim() !== '') out.push(e);
  };
  const p = (f: string) => join(dir, f);

  // Davidson: 0 hate, 1 offensive (profanity, not hate), 2 neither.
  for (const r of readCsvGz(p('davidson_hate_offensive/labeled_data.csv.gz'))) {
    const c = r.class;
    const labels =
      c === '0'
        ? lab({ [T]: 1, [HA]: 1, [SP]: 0, [SH]: 0, [S]: 0 })
        : c === '1'
          ? lab({ [T]: 1, [HA]: 0, [P]: 1, [SP]: 0, [SH]: 0 })
          : clean();
    push({ text: r.text!, lang: 'en', source: 'davidson', split: hashSplit(r.text!), labels, group: c });
  }
  // TweetEval hate: train / val (= calibration + tuning) / test.
  for (const [file, split] of [
    ['hate_train', 'train'],
    ['hate_val', 'calib'],
    ['hate_test', 'test'],
  ] as const) {
    for (const r of readCsvGz(p(`tweeteval_hate_offensive/${file}.csv.gz`))) {
      // A tweet that is not hateful may still be rude, so toxicity stays unknown for one with a swear word or an
      // insult; without either it is 0. Masked on every non-hateful tweet, the toxicity head saw the groups this
      // set is about only in hateful ones: "Refugees" alone read toxicity 1.00, "migrants" 1.00.
      const labels =
        r.label === '1'
          ? lab({ [T]: 1, [HA]: 1, [SP]: 0, [SH]: 0 })
          : lab({ [HA]: 0, [SP]: 0, [SH]: 0, ...(!rude(r.text!) && { [T]: 0 }) });
      push({ text: r.text!, lang: 'en', source: 'tweeteval_hate', split, labels });
    }
  }
  // OLID subtask B/C labels joined onto TweetEval-offensive rows (same tweets; OLID test = TweetEval test).
  const olid = new Map<string, { b: string; c: string }>();
  for (const f of ['olid_train', 'olid_test']) {
    for (const r of readCsvGz(p(`olid_offenseval2019/${f}.csv.gz`)))
      olid.set(olidKey(r.tweet!), { b: r.subtask_b!, c: r.subtask_c! });
  }
  for (const [file, split] of [
    ['offensive_train', 'train'],
    ['offensive_val', 'calib'],
    ['offensive_test', 'test'],
  ] as const) {
    for (const r of readCsvGz(p(`tweeteval_hate_offensive/${file}.csv.gz`))) {
      let labels: Int8Array;
      let group = 'NOT';
      if (r.label === '1') {
        labels = lab({ [T]: 1, [SP]: 0, [SH]: 0 });
        const o = olid.get(olidKey(r.text!));
        if (o) {
          group = `${o.b}${o.c ? `-${o.c}` : ''}`;
          if (o.b === 'UNT') {
            labels[P] = 1;
            labels[H] = 0;
          } else if (o.b === 'TIN' && o.c === 'IND') {
            labels[H] = 1;
            labels[S] = 0; // insults, not sexual content (gives the sexual head profane negatives)
          }
        }
      } else labels = clean();
      push({ text: r.text!, lang: 'en', source: 'tweeteval_offensive', split, labels, group });
    }
  }
  // ETHOS (GPL-3.0): binary hate + multi-label (violence, directed) on the hateful subset.
  if (!opts.excludeGpl) {
    const multi = new Map<string, Record<string, string>>();
    for (const r of readCsvGz(p('ethos/ethos_multilabel.csv.gz'))) multi.set(r.text!, r);
    for (const r of readCsvGz(p('ethos/ethos_binary.csv.gz'))) {
      const v = Number(r.isHate);
      const labels = v >= 0.5 ? lab({ [T]: 1, [HA]: 1 }) : lab({ [HA]: 0 });
      if (v === 0) labels[T] = 0;
      const m = multi.get(r.text!);
      if (m) {
        labels[V] = Number(m.violence) >= 0.5 ? 1 : 0;
        if (Number(m.directed_vs_generalized) >= 0.5) labels[H] = 1;
      }
      push({ text: r.text!, lang: 'en', source: 'ethos', split: hashSplit(r.text!), labels });
    }
  }
  // Surge toxicity sample.
  for (const r of readCsvGz(p('surge_toxicity/toxicity_en.csv.gz'))) {
    const labels = r.is_toxic === 'Toxic' ? lab({ [T]: 1, [SP]: 0 }) : clean({ [P]: -1, [S]: -1 });
    push({ text: r.text!, lang: 'en', source: 'surge_toxicity', split: hashSplit(r.text!), labels });
  }
  // ToxiGen seed sentences: implicit hate vs neutral about the same groups.
  for (const r of readCsvGz(p('toxigen_seed_sentences/toxigen_prompt_sentences.csv.gz'))) {
    const labels = r.label === '1' ? lab({ [T]: 1, [HA]: 1, [SP]: 0, [P]: 0 }) : clean();
    push({ text: r.text!, lang: 'en', source: 'toxigen', split: hashSplit(r.text!), labels });
  }
  // GermEval 2018 (de).
  for (const r of readCsvGz(p('germeval2018_de/germeval2018_train.csv.gz'))) {
    const f = r.label_fine;
    const labels =
      f === 'OTHER'
        ? clean()
        : f === 'INSULT'
          ? lab({ [T]: 1, [H]: 1, [SP]: 0, [S]: 0 })
          : f === 'PROFANITY'
            ? lab({ [T]: 1, [P]: 1, [H]: 0, [HA]: 0, [SP]: 0 })
            : lab({ [T]: 1, [SP]: 0 });
    push({ text: r.text!, lang: 'de', source: 'germeval2018', split: hashSplit(r.text!), labels, group: f });
  }
  // GermEval 2025 violence (de, GPL-3.0).
  if (!opts.excludeGpl) {
    for (const r of readCsvGz(p('germeval2025_violence_de/vio_train.csv.gz'))) {
      const labels = r.VIO === 'True' ? lab({ [V]: 1, [SP]: 0, [SH]: 0 }) : lab({ [V]: 0, [SP]: 0, [SH]: 0 });
      push({ text: r.text!, lang: 'de', source: 'germeval2025_violence', split: hashSplit(r.text!), labels });
    }
  }
  // OffensEval 2020 Turkish.
  for (const r of readCsvGz(p('offenseval2020_tr/offenseval2020_tr_train.csv.gz'))) {
    // NOT rows say nothing about insults or swearing that are not "offensive" enough: those heads stay unknown
    const labels = r.subtask_a === 'OFF' ? lab({ [T]: 1, [SP]: 0 }) : clean({ [H]: -1, [P]: -1 });
    push({ text: r.text!, lang: 'tr', source: 'offenseval2020_tr', split: hashSplit(r.text!), labels });
  }
  // Arabic: OSACT2020 train (train/calib) and dev (test); L-HSAB (hash split).
  for (const [file, isDev] of [
    ['osact2020_train', false],
    ['osact2020_dev', true],
  ] as const) {
    for (const r of readCsvGz(p(`arabic_offensive/${file}.csv.gz`))) {
      const text = r.text!.replace(/<LF>/g, '\n');
      const off = r.offensive === 'OFF';
      const hs = r.hate_speech === 'HS';
      const labels = off ? lab({ [T]: 1, [HA]: hs ? 1 : 0, [SP]: 0 }) : clean({ [H]: -1, [P]: -1 });
      const split: Split = isDev ? 'test' : hashSplit(text, 85, 15);
      push({ text, lang: 'ar', source: 'osact2020', split, labels });
    }
  }
  for (const r of readCsvGz(p('arabic_offensive/l_hsab.csv.gz'))) {
    const l = r.label;
    const labels =
      l === 'hate'
        ? lab({ [T]: 1, [HA]: 1, [SP]: 0 })
        : l === 'abusive'
          ? lab({ [T]: 1, [HA]: 0, [SP]: 0 })
          : clean({ [H]: -1, [P]: -1 });
    push({ text: r.text!, lang: 'ar', source: 'l_hsab', split: hashSplit(r.text!), labels });
  }
  // SMS spam.
  for (const r of readCsvGz(p('sms_spam_collection/sms_spam_collection.csv.gz'))) {
    const labels =
      r.label === 'spam'
        ? lab({ [SP]: 1, [T]: 0, [H]: 0, [HA]: 0, [V]: 0, [SH]: 0 })
        : clean({ [P]: -1, [S]: -1 });
    push({ text: r.text!, lang: 'en', source: 'sms_spam', split: hashSplit(r.text!), labels });
  }
  // SpamAssassin e-mail (subject + decoded body, first 2,000 characters).
  for (const line of readGz(p('spamassassin_email/spamassassin_public_corpus.jsonl.gz')).split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { md5: string; label: string; text: string; group: string };
    const text = emailText(r.text).slice(0, 2000);
    const labels = r.label === 'spam' ? lab({ [SP]: 1, [SH]: 0 }) : lab({ [SP]: 0, [HA]: 0, [SH]: 0 });
    push({ text, lang: 'en', source: 'spamassassin', split: hashSplit(r.md5), labels, group: r.group });
  }
  // Reddit C-SSRS (per user split; each post gets its user's label; Indicator users are left out of training).
  for (const r of readCsvGz(p('reddit_cssrs_suicide_500/reddit_cssrs_500_users.csv.gz'))) {
    const level = r.Label!;
    const split = hashSplit(r.User!);
    for (const post of parsePyList(r.Post!)) {
      const text = post.slice(0, 1500);
      if (text.length < 20) continue;
      const risk = level === 'Ideation' || level === 'Behavior' || level === 'Attempt';
      if (level === 'Indicator' && split === 'train') continue;
      const labels = lab({ [SH]: risk ? 1 : 0, [SP]: 0 });
      push({ text, lang: 'en', source: 'reddit_cssrs', split, labels, group: level });
    }
  }
  // Evaluation-only sets (never trained or calibrated on).
  for (const r of readCsvGz(p('conversationai_bias_eval/toxicity_nonfuzzed_testset.csv.gz'))) {
    push({
      text: r.comment!,
      lang: 'en',
      source: 'wiki_toxicity_identity',
      split: 'eval',
      labels: lab({ [T]: r.toxic === 'True' ? 1 : 0 }),
    });
  }
  for (const r of readCsvGz(p('conversationai_bias_eval/bias_madlibs_77k.csv.gz'))) {
    push({
      text: r.Text!,
      lang: 'en',
      source: 'bias_madlibs',
      split: 'eval',
      labels: lab({ [T]: r.Label === 'BAD' ? 1 : 0 }),
    });
  }
  // Generated examples (templates; see augment.ts).
  for (const g of generated()) push({ ...g, split: hashSplit(`gen:${g.text}`) });

  // Team-authored sentences and template expansions (training/authored, GUIDELINES.md), split 70/15/15 by text,
  // or by template so that one template's expansions never straddle train and test. Texts of the functional
  // suite (suite/, evaluation only, other authors) are dropped by their normalised form.
  const suiteKeys = new Set(loadSuite().map((s) => authoredKey(s.text)));
  for (const a of loadAuthoredTraining()) {
    if (suiteKeys.has(authoredKey(a.text))) continue;
    const split = authoredSplit(a);
    push({
      text: a.text,
      lang: a.lang,
      source: 'authored',
      split,
      labels: labelVector(a.labels),
      group: a.phenomenon,
      ...(a.template !== undefined ? { template: a.template } : {}),
    });
  }

  // Never train or calibrate on a text that also occurs in a test/eval split.
  const held = new Set<string>();
  for (const e of out) if (e.split === 'test' || e.split === 'eval') held.add(dedupKey(e.text));
  return out.filter((e) => e.split === 'test' || e.split === 'eval' || !held.has(dedupKey(e.text)));
}

function dedupKey(t: string): string {
  return t
    .toLowerCase()
    .replace(/@user/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * English insults that are no swear words (the profanity lexicon has few of them); the team's list. Not curated.ts's
 * INSULTS: that one has phrases and lacks the dehumanising words ("vermin", "invaders") this mask must see.
 */
const INSULTS = (
  'idiot idiots stupid moron morons dumb dumbass scum scumbag scumbags trash loser losers pig pigs filth filthy ' +
  'disgusting vile pathetic worthless ugly fat hate kill die shut traitor traitors animal animals savage savages ' +
  'parasite parasites vermin rat rats invader invaders criminal criminals rapist rapists thug thugs clown liar ' +
  'liars coward cowards creep freak retarded lunatic psycho garbage'
).split(' ');

/**
 * Whether a tweet has a swear word (the single-word entries of the profanity lexicon in ../shared/datasets) or one
 * of the team's insults: for labels that say a text is not hateful but not whether it is rude.
 */
function rudeness(dir: string): (text: string) => boolean {
  const words = new Set(INSULTS);
  for (const r of readCsvGz(join(dir, 'surge_profanity_lexicon/profanity_en.csv.gz'))) {
    const w = (r.text ?? '').toLowerCase();
    if (w !== '' && !/\s/.test(w)) words.add(w);
  }
  return (text) => {
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}@$*!]+/gu) ?? []) {
      if (words.has(w) || /^(fuck|shit|bitch|cunt|whore|slut)/.test(w)) return true;
    }
    return false;
  };
}
