import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import { describeError, ErrorMessage, Link, Loading, PageHeader, useLoad } from '../components.tsx';
import { navigate } from '../router.ts';
import type { Policy } from '../types.ts';
import { DryRunPanel } from './dry-run.tsx';

const TEMPLATE = `name: My policy
description: What this policy is for
categories:
  hate:
    threshold: 0.7
    action: block
  harassment:
    threshold: 0.8
    action: flag
  spam:
    threshold: 0.9
    action: warn
`;

type Validation =
  | { state: 'checking' }
  | { state: 'valid'; name: string; categories: number }
  | { state: 'invalid'; code: string; message: string; line?: number; column?: number };

/** Offset in the text of a 1-based line and column. */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return Math.min(offset + Math.max(column - 1, 0), text.length);
}

export function PolicyEditorPage(props: { policyId: string | null }) {
  const isNew = props.policyId === null;
  const loaded = useLoad(
    () =>
      isNew ? Promise.resolve(null) : api.get<Policy>(`/v1/policies/${encodeURIComponent(props.policyId!)}`),
    [props.policyId],
  );
  const policy = loaded.data ?? null;
  const readOnly = policy?.builtin ?? false;
  const [policyId, setPolicyId] = useState('');
  const [yaml, setYaml] = useState<string | null>(null);
  const [validation, setValidation] = useState<Validation>({ state: 'checking' });
  const [save, setSave] = useState<{ busy?: boolean; error?: string; saved?: number }>({});
  const area = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (loaded.loading) return;
    setYaml(policy ? policy.yamlContent : TEMPLATE);
    setPolicyId(policy && !policy.builtin ? policy.policyId : policy ? `${policy.policyId}-copy` : '');
  }, [policy, loaded.loading]);

  // validates as you type, through the service's own parser (the same errors saving would give)
  useEffect(() => {
    if (yaml === null) return;
    setValidation({ state: 'checking' });
    const timer = setTimeout(() => {
      api
        .post<{ name: string; categories: Record<string, unknown> }>('/v1/policies/validate', {
          yamlContent: yaml,
        })
        .then(
          (ok) =>
            setValidation({ state: 'valid', name: ok.name, categories: Object.keys(ok.categories).length }),
          (error: unknown) => {
            const details = error instanceof ApiError ? error.details : undefined;
            setValidation({
              state: 'invalid',
              code: error instanceof ApiError ? error.code : 'ERROR',
              message: error instanceof Error ? error.message : String(error),
              ...(typeof details?.line === 'number' && { line: details.line }),
              ...(typeof details?.column === 'number' && { column: details.column }),
            });
          },
        );
    }, 300);
    return () => clearTimeout(timer);
  }, [yaml]);

  if (loaded.error) return <ErrorMessage error={loaded.error} retry={loaded.reload} />;
  // (after saving a new policy the address changes before its record has loaded)
  if (yaml === null || (!isNew && policy?.policyId !== props.policyId)) return <Loading />;

  const goToError = () => {
    if (validation.state !== 'invalid' || !validation.line || !area.current) return;
    const at = offsetOf(yaml, validation.line, validation.column ?? 1);
    area.current.focus();
    area.current.setSelectionRange(at, at);
  };
  const submit = (event: Event) => {
    event.preventDefault();
    setSave({ busy: true });
    const copying = readOnly || isNew;
    api
      .post<Policy>('/v1/policies', {
        policyId: copying ? policyId.trim() : policy!.policyId,
        yamlContent: yaml,
      })
      .then(
        (saved) => {
          setSave({ saved: saved.version });
          if (copying) navigate(`/policies/${encodeURIComponent(saved.policyId)}`, { replace: true });
          else loaded.reload();
        },
        (error: unknown) => setSave({ error: describeError(error) }),
      );
  };
  const lines = yaml.split('\n').length;
  const title = isNew ? 'New policy' : readOnly ? `${policy!.policyId} (built-in)` : policy!.policyId;
  return (
    <section>
      <p class="crumbs">
        <Link to="/policies">Policies</Link> / <span>{isNew ? 'New' : props.policyId}</span>
      </p>
      <PageHeader
        title={title}
        description={
          readOnly
            ? 'Built-in policies cannot be changed; save a copy under a new ID to adjust it.'
            : policy
              ? `Version ${policy.version}. Saving creates version ${policy.version + 1}.`
              : 'Write the policy in YAML; it is checked as you type.'
        }
      />
      <div class="editor-layout">
        <form class="card editor" onSubmit={submit}>
          {(isNew || readOnly) && (
            <label class="field">
              <span>Policy ID</span>
              <input
                type="text"
                required
                pattern="[A-Za-z0-9_\-]{1,64}"
                title="1–64 letters, digits, _ or -"
                value={policyId}
                onInput={(e) => setPolicyId(e.currentTarget.value)}
              />
            </label>
          )}
          <label class="field">
            <span>Policy YAML</span>
            <textarea
              ref={area}
              class="yaml"
              spellcheck={false}
              rows={Math.min(Math.max(lines + 1, 12), 30)}
              value={yaml}
              onInput={(e) => {
                setYaml(e.currentTarget.value);
                setSave({});
              }}
              aria-describedby="yaml-status"
              aria-invalid={validation.state === 'invalid' ? true : undefined}
            />
          </label>
          <div id="yaml-status" class={`validation ${validation.state}`} role="status" aria-live="polite">
            {validation.state === 'checking' && 'Checking…'}
            {validation.state === 'valid' &&
              `Valid: “${validation.name}”, ${validation.categories} categories.`}
            {validation.state === 'invalid' && (
              <>
                {validation.line !== undefined && (
                  <button type="button" class="link-button" onClick={goToError}>
                    Line {validation.line}
                    {validation.column !== undefined && `, column ${validation.column}`}
                  </button>
                )}{' '}
                {validation.message} <code>{validation.code}</code>
              </>
            )}
          </div>
          {save.error && (
            <p class="notice error" role="alert">
              {save.error}
            </p>
          )}
          {save.saved !== undefined && (
            <p class="notice success" role="status">
              Saved version {save.saved}.
            </p>
          )}
          <div class="form-actions">
            <button type="submit" class="button primary" disabled={save.busy}>
              {save.busy ? 'Saving…' : isNew || readOnly ? 'Save policy' : 'Save new version'}
            </button>
          </div>
        </form>
        {policy ? (
          <DryRunPanel policy={policy} stale={!readOnly && yaml !== policy.yamlContent} />
        ) : (
          <div class="card">
            <h2>Dry run</h2>
            <p class="muted">Save the policy to try it against made-up scores.</p>
          </div>
        )}
      </div>
    </section>
  );
}
