import { Lexicon, TF_MENTION, TF_NUMBER, Tokenizer } from '@verdict/text-model';
import type { RE2JS } from 're2js';
import { compileRegex, LIST_CHUNK_BITS, LIST_LANG, LIST_LANG_BIT } from './normalise.ts';
import type { EntryType } from './types.ts';

/** What the compiled list needs of an entry. */
export interface EntryRow {
  id: string;
  type: EntryType;
  value: string;
  normalised: string;
}

/** An entry found in a text: its index in the rows the list was compiled from, and the span in the text. */
export interface Hit {
  entry: number;
  start: number;
  end: number;
}

/**
 * One list compiled for matching: built once per list version, then matched against any number of texts without
 * reading the database.
 *
 * Terms and phrases: every distinct normalised word of the list becomes an entry of a text-model Lexicon, and the
 * model's own tokenizer runs over the text with that lexicon: its evasion decoding (masks "f*ck", leet at a word's
 * edges "@ss", repeated letters) resolves to the list's words as it resolves to the model's, and each token comes
 * out with its word ID (a hash lookup, no scan of the list). Phrases are a trie over word IDs, walked from each
 * token (at most MAX_PHRASE_TOKENS steps), so a match costs O(tokens), whatever the size of the list, and only
 * whole words match ("ass" does not match "class").
 *
 * Regexes (RE2JS, linear time) run over the normalised text: the tokens' normalised forms joined by single spaces.
 */
export class CompiledList {
  readonly entries: readonly EntryRow[];
  private readonly lexicon: Lexicon;
  private readonly tokenizer: Tokenizer;
  private readonly words: number;
  /** word ID → trie node of the one-word prefix, or -1 */
  private readonly first: Int32Array;
  /** (node × words + word) → child node, for the second word on */
  private readonly edges = new Map<number, number>();
  private readonly hasChildren: Uint8Array;
  /** node → index of the entry that ends there, or -1 */
  private readonly terminal: Int32Array;
  private readonly regexes: { entry: number; re: RE2JS }[] = [];
  /** every regex as one alternation: one linear pass tells whether any matches (most texts: none) */
  private readonly anyRegex: RE2JS | null;
  private ids = new Int32Array(256);

  constructor(rows: readonly EntryRow[]) {
    this.entries = rows;
    const wordIds = new Map<string, number>();
    const phrases: { entry: number; words: number[] }[] = [];
    rows.forEach((row, entry) => {
      if (row.type === 'regex') {
        this.regexes.push({ entry, re: compileRegex(row.value) });
        return;
      }
      const words = row.normalised.split(' ').map((w) => {
        let id = wordIds.get(w);
        if (id === undefined) {
          id = wordIds.size;
          wordIds.set(w, id);
        }
        return id;
      });
      phrases.push({ entry, words });
    });
    this.anyRegex =
      this.regexes.length > 0
        ? compileRegex(this.regexes.map(({ entry }) => `(?:${rows[entry]!.value})`).join('|'))
        : null;
    this.words = wordIds.size;
    const terms = [...wordIds.keys()];
    this.lexicon = new Lexicon({
      terms,
      flags: new Array(terms.length).fill(0),
      langs: new Array(terms.length).fill(-1),
    });
    this.tokenizer = new Tokenizer(this.lexicon, LIST_CHUNK_BITS);
    this.first = new Int32Array(this.words).fill(-1);
    const terminal: number[] = [];
    const children: number[] = [];
    const newNode = () => {
      terminal.push(-1);
      children.push(0);
      return terminal.length - 1;
    };
    for (const { entry, words } of phrases) {
      let node = this.first[words[0]!]!;
      if (node < 0) {
        node = newNode();
        this.first[words[0]!] = node;
      }
      for (let k = 1; k < words.length; k++) {
        const key = node * this.words + words[k]!;
        let next = this.edges.get(key);
        if (next === undefined) {
          next = newNode();
          this.edges.set(key, next);
          children[node] = 1;
        }
        node = next;
      }
      // two entries that normalise alike cannot both be stored (unique per list); keep the first regardless
      if (terminal[node] === -1) terminal[node] = entry;
    }
    this.terminal = Int32Array.from(terminal);
    this.hasChildren = Uint8Array.from(children);
  }

  /** Entries found in `text`, in the order of the text (at most `limit`). */
  match(text: string, limit: number): Hit[] {
    const hits: Hit[] = [];
    const tk = this.tokenizer;
    const n = tk.run(text, LIST_LANG, LIST_LANG_BIT);
    if (this.ids.length < n) this.ids = new Int32Array(n * 2);
    const ids = this.ids;
    for (let t = 0; t < n; t++) {
      let w = tk.tLex[t]!;
      // the tokenizer skips the lexicon for numbers and mentions: a list may still hold a number ("1488")
      if (w < 0 && (tk.tFlag[t]! & (TF_NUMBER | TF_MENTION)) !== 0) {
        w = this.lexicon.find(tk.cps, tk.tS[t]!, tk.tE[t]!, LIST_LANG_BIT);
      }
      ids[t] = w;
    }
    for (let t = 0; t < n && hits.length < limit; t++) {
      const w = ids[t]!;
      if (w < 0) continue;
      let node = this.first[w]!;
      let k = t;
      while (node >= 0) {
        const entry = this.terminal[node]!;
        if (entry >= 0) {
          hits.push({ entry, start: tk.oS[t]!, end: tk.oE[k]! });
          if (hits.length >= limit) break;
        }
        if (this.hasChildren[node] === 0 || k + 1 >= n || ids[k + 1]! < 0) break;
        node = this.edges.get(node * this.words + ids[k + 1]!) ?? -1;
        k++;
      }
    }
    if (this.anyRegex && hits.length < limit) this.matchRegexes(n, hits, limit);
    return hits.sort((a, b) => a.start - b.start || a.end - b.end);
  }

  /** Runs the regex entries over the normalised text of the tokens just read (the tokenizer's buffers). */
  private matchRegexes(n: number, hits: Hit[], limit: number): void {
    const tk = this.tokenizer;
    const starts = new Int32Array(n + 1);
    const parts: string[] = [];
    let at = 0;
    for (let t = 0; t < n; t++) {
      starts[t] = at;
      const part = tk.tokenText(t);
      parts.push(part);
      at += part.length + 1;
    }
    starts[n] = at;
    const normalised = parts.join(' ');
    if (!this.anyRegex!.test(normalised)) return;
    // the token whose normalised text holds offset `o` of the normalised text
    const tokenAt = (o: number) => {
      let lo = 0;
      let hi = n - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= o) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    };
    for (const { entry, re } of this.regexes) {
      if (hits.length >= limit) return;
      if (!re.test(normalised)) continue;
      const m = re.matcher(normalised);
      if (!m.find()) continue;
      const a = m.start();
      const b = Math.max(a, m.end() - 1);
      if (n === 0) hits.push({ entry, start: 0, end: 0 });
      else hits.push({ entry, start: tk.oS[tokenAt(a)]!, end: tk.oE[tokenAt(b)]! });
    }
  }
}
