import type { CategoryResult, Highlight } from './types.ts';

interface Span {
  start: number;
  end: number;
  categories: string[];
}

/** Where a highlight is in the text: its offsets when they hold its text, else the first occurrence of the text. */
function locate(content: string, h: Highlight): [number, number] | null {
  if (content.slice(h.start, h.end) === h.text) return [h.start, h.end];
  const at = h.text ? content.indexOf(h.text) : -1;
  return at >= 0 ? [at, at + h.text.length] : null;
}

/** Splits a text into plain and highlighted runs; a run lists every category whose highlight covers it. */
export function spans(content: string, categories: CategoryResult[], only: string | null): Span[] {
  const cuts = new Set([0, content.length]);
  const ranges: { start: number; end: number; category: string }[] = [];
  for (const c of categories) {
    if (only && c.category !== only) continue;
    for (const h of c.highlights ?? []) {
      const at = locate(content, h);
      if (!at) continue;
      ranges.push({ start: at[0], end: at[1], category: c.category });
      cuts.add(at[0]);
      cuts.add(at[1]);
    }
  }
  const points = [...cuts].sort((a, b) => a - b);
  const result: Span[] = [];
  for (let i = 0; i < points.length - 1; i++) {
    const start = points[i]!;
    const end = points[i + 1]!;
    const covering = ranges.filter((r) => r.start <= start && r.end >= end).map((r) => r.category);
    result.push({ start, end, categories: [...new Set(covering)] });
  }
  return result;
}

export function HighlightedText(props: {
  content: string;
  categories: CategoryResult[];
  only: string | null;
  colors: Map<string, number>;
}) {
  return (
    <p class="content-text">
      {spans(props.content, props.categories, props.only).map((s) =>
        s.categories.length === 0 ? (
          props.content.slice(s.start, s.end)
        ) : (
          <mark
            key={s.start}
            class={`hl hl-${props.colors.get(s.categories[0]!) ?? 0}`}
            title={s.categories.join(', ')}
          >
            {props.content.slice(s.start, s.end)}
            <span class="sr-only"> ({s.categories.join(', ')})</span>
          </mark>
        ),
      )}
    </p>
  );
}
