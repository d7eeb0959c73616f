import { label } from './format.ts';
import type { CategoryResult } from './types.ts';

/** Each category's score as a bar, with the policy's threshold marked on it. */
export function ScoreTable(props: { categories: CategoryResult[]; compact?: boolean }) {
  if (props.categories.length === 0) return <p class="muted">No categories were scored.</p>;
  const full = !props.compact;
  return (
    <div class="table-scroll">
      <table class="table scores">
        <caption class="sr-only">Scores against thresholds</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col" class="score-col">
              Score vs threshold
            </th>
            <th scope="col">Score</th>
            {full && (
              <th scope="col" class="hide-narrow">
                Threshold
              </th>
            )}
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {props.categories.map((c) => (
            <tr key={c.category} class={c.triggered ? 'triggered' : undefined}>
              <th scope="row">{label(c.category)}</th>
              <td class="score-col">
                <div class="score-bar" aria-hidden="true">
                  <span
                    class={`score-fill ${c.triggered ? 'over' : ''}`}
                    style={{ width: `${c.score * 100}%` }}
                  />
                  {c.threshold !== undefined && (
                    <span class="score-threshold" style={{ left: `${c.threshold * 100}%` }} />
                  )}
                </div>
              </td>
              <td class="num">{c.score.toFixed(3)}</td>
              {full && (
                <td class="num hide-narrow">{c.threshold === undefined ? '—' : c.threshold.toFixed(2)}</td>
              )}
              <td>
                {c.evaluated === false ? (
                  <span class="muted">not judged</span>
                ) : c.triggered ? (
                  <strong class="text-danger">triggered</strong>
                ) : (
                  <span class="muted">below</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
