/** Platt scaling per category, pooled and per language (a language's own fit where it has enough labelled texts). */
import { N_HEADS, SUPPORTED_LANGUAGES } from '../src/constants.ts';
import { fitPlatt } from './trainer.ts';

/** A language gets its own fit for a category when its calibration texts have at least this many of each class. */
export const MIN_PER_CLASS = 30;

export class CalibrationSet {
  private readonly pooled = Array.from({ length: N_HEADS }, () => ({ z: [] as number[], y: [] as number[] }));
  private readonly byLang = new Map<string, { z: number[]; y: number[] }[]>();

  /** Adds a logit with its label; `lang` null adds it to the pooled fit only. */
  add(k: number, z: number, y: number, lang: string | null): void {
    this.pooled[k]!.z.push(z);
    this.pooled[k]!.y.push(y);
    if (lang === null) return;
    let l = this.byLang.get(lang);
    if (!l) {
      l = Array.from({ length: N_HEADS }, () => ({ z: [] as number[], y: [] as number[] }));
      this.byLang.set(lang, l);
    }
    l[k]!.z.push(z);
    l[k]!.y.push(y);
  }

  pooledFit(k: number): [number, number] {
    const p = this.pooled[k]!;
    return roundPair(fitPlatt(p.z, p.y));
  }

  size(k: number): number {
    return this.pooled[k]!.z.length;
  }

  /**
   * Per-language rows (all N_HEADS heads; the pooled fit where the language has too few texts of a class), for the
   * languages with at least one own fit. `skip`: heads always left to the pooled fit.
   */
  byLanguage(pooled: [number, number][], skip: number[] = []): Record<string, [number, number][]> {
    const out: Record<string, [number, number][]> = {};
    for (const lang of SUPPORTED_LANGUAGES) {
      const l = this.byLang.get(lang);
      if (!l) continue;
      let own = false;
      const rows = pooled.map((row, k) => {
        if (skip.includes(k)) return row;
        const n1 = l[k]!.y.filter((y) => y === 1).length;
        const n0 = l[k]!.y.length - n1;
        if (n1 < MIN_PER_CLASS || n0 < MIN_PER_CLASS) return row;
        own = true;
        return roundPair(fitPlatt(l[k]!.z, l[k]!.y));
      });
      if (own) out[lang] = rows;
    }
    return out;
  }
}

function roundPair([a, b]: [number, number]): [number, number] {
  return [Math.round(a * 1e6) / 1e6, Math.round(b * 1e6) / 1e6];
}
