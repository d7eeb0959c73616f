import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ActionBadge, describeError } from '../components.tsx';
import { label } from '../format.ts';
import { ScoreTable } from '../scores.tsx';
import type { Decision, Policy } from '../types.ts';

/** Try a saved policy against made-up scores: one slider per category, answered by POST /v1/check/dry-run. */
export function DryRunPanel(props: { policy: Policy; stale: boolean }) {
  const names = Object.keys(props.policy.categories);
  const [scores, setScores] = useState<Record<string, number>>(() =>
    Object.fromEntries(names.map((n) => [n, 0])),
  );
  const [result, setResult] = useState<{ decision?: Decision; error?: string }>({});
  const key = `${props.policy.policyId}@${props.policy.version}`;
  useEffect(() => {
    const timer = setTimeout(() => {
      const mockScores = Object.fromEntries(names.map((n) => [n, scores[n] ?? 0]));
      api.post<Decision>('/v1/check/dry-run', { policyId: props.policy.policyId, mockScores }).then(
        (decision) => setResult({ decision }),
        (error: unknown) => setResult({ error: describeError(error) }),
      );
    }, 150);
    return () => clearTimeout(timer);
  }, [scores, key]);
  return (
    <div class="card">
      <h2>Dry run</h2>
      <p class="muted">
        Move a score to see what version {props.policy.version} of this policy decides. No content is
        evaluated.
        {props.stale && ' Unsaved edits are not included: save first.'}
      </p>
      <div class="sliders">
        {names.map((name) => (
          <label key={name} class="slider">
            <span>{label(name)}</span>
            <input
              type="range"
              min={0}
              max={1}
              step={0.01}
              value={scores[name] ?? 0}
              aria-valuetext={(scores[name] ?? 0).toFixed(2)}
              onInput={(e) => {
                const value = Number(e.currentTarget.value);
                setScores((s) => ({ ...s, [name]: value }));
              }}
            />
            <output class="num">{(scores[name] ?? 0).toFixed(2)}</output>
            <span class="muted small">threshold {props.policy.categories[name]!.threshold}</span>
          </label>
        ))}
      </div>
      <div aria-live="polite">
        {result.error && <p class="notice error">{result.error}</p>}
        {result.decision && (
          <>
            <p class="dry-run-result">
              Decision: <ActionBadge action={result.decision.action} />
            </p>
            <ScoreTable categories={result.decision.categories} compact />
          </>
        )}
      </div>
    </div>
  );
}
