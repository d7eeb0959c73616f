import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { onLinkClick } from './router.ts';
import type { Action } from './types.ts';

export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  const href = `/dashboard${props.to === '/' ? '' : props.to}`;
  return (
    <a
      href={href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => onLinkClick(event, props.to)}
    >
      {props.children}
    </a>
  );
}

export function PageHeader(props: {
  title: string;
  description?: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <header class="page-header">
      <div>
        <h1>{props.title}</h1>
        {props.description && <p class="muted">{props.description}</p>}
      </div>
      {props.actions && <div class="page-actions">{props.actions}</div>}
    </header>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? 'Loading…'}
    </div>
  );
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorMessage(props: { error: unknown; retry?: () => void }) {
  return (
    <div class="notice error" role="alert">
      <p>{describeError(props.error)}</p>
      {props.retry && (
        <button type="button" class="button small" onClick={props.retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{props.title}</p>
      {props.children && <div class="muted">{props.children}</div>}
    </div>
  );
}

export function ActionBadge(props: { action: Action | string }) {
  return <span class={`badge action-${props.action}`}>{props.action}</span>;
}

export function StatusBadge(props: { ok: boolean; children: ComponentChildren }) {
  return <span class={`badge ${props.ok ? 'status-ok' : 'status-off'}`}>{props.children}</span>;
}

/** Loads something from the API; `reload` fetches again. Stale answers (a newer load started) are dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ data: previous.data, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: unknown) => mine === generation.current && setState({ error, loading: false }),
    );
  }, deps);
  useEffect(reload, [reload]);
  return { ...state, reload };
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // plain-HTTP pages other than localhost have no Clipboard API
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

export function CopyButton(props: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'idle' | 'done' | 'failed'>('idle');
  const copy = () =>
    copyText(props.text).then(
      () => setCopied('done'),
      () => setCopied('failed'),
    );
  useEffect(() => {
    if (copied === 'idle') return;
    const timer = setTimeout(() => setCopied('idle'), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button type="button" class="button small" onClick={copy}>
      {copied === 'done' ? 'Copied' : copied === 'failed' ? 'Copy failed' : (props.label ?? 'Copy')}
      <span class="sr-only" role="status">
        {copied === 'done' ? 'Copied to the clipboard' : ''}
      </span>
    </button>
  );
}

/** A secret shown once (a new key, a webhook secret): monospace, selectable, with a copy button. */
export function SecretOnce(props: { title: string; value: string; children?: ComponentChildren }) {
  return (
    <div class="notice success secret" role="status">
      <p>
        <strong>{props.title}</strong> {props.children}
      </p>
      <div class="secret-row">
        <code class="secret-value">{props.value}</code>
        <CopyButton text={props.value} />
      </div>
    </div>
  );
}

/** A modal confirmation built on <dialog>: focus is trapped and Escape cancels, as the browser does it. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="confirm-title" onCancel={props.onCancel}>
      <h2 id="confirm-title">{props.title}</h2>
      <div>{props.children}</div>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button
          type="button"
          class={`button ${props.danger ? 'danger' : 'primary'}`}
          onClick={props.onConfirm}
        >
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export function Pager(props: {
  offset: number;
  limit: number;
  hasMore: boolean;
  onPage: (offset: number) => void;
  shown: number;
}) {
  if (props.offset === 0 && !props.hasMore) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button
        type="button"
        class="button small"
        disabled={props.offset === 0}
        onClick={() => props.onPage(Math.max(0, props.offset - props.limit))}
      >
        Previous
      </button>
      <span class="muted">
        {props.offset + 1}–{props.offset + props.shown}
      </span>
      <button
        type="button"
        class="button small"
        disabled={!props.hasMore}
        onClick={() => props.onPage(props.offset + props.limit)}
      >
        Next
      </button>
    </nav>
  );
}

/** A column of `TableHead`: a label, or one hidden on narrow screens, or one read only by screen readers. */
export type Column = string | { label: string; narrow?: boolean; srOnly?: boolean };

/** The `<thead>` of a data table; `false` entries (columns shown only sometimes) are skipped. */
export function TableHead(props: { columns: (Column | false)[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) => {
          if (column === false) return null;
          const { label, narrow, srOnly } = typeof column === 'string' ? { label: column } : column;
          return (
            <th key={label} scope="col" class={narrow ? 'hide-narrow' : undefined}>
              {srOnly ? <span class="sr-only">{label}</span> : label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/**
 * The shell of a "create" form (a key, a webhook endpoint): a titled card, a
 * validation or API error, and Cancel / submit buttons. `submit` reads the form and
 * returns the request, or a message to show instead of sending it.
 */
export function CreateForm<T>(props: {
  id: string;
  title: string;
  submitLabel: string;
  busyLabel: string;
  submit: (form: FormData) => Promise<T> | string;
  onCreated: (created: T) => void;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const request = props.submit(new FormData(event.currentTarget as HTMLFormElement));
    if (typeof request === 'string') {
      setError(request);
      return;
    }
    setBusy(true);
    setError(null);
    request.then(props.onCreated, (failure: unknown) => {
      setBusy(false);
      setError(describeError(failure));
    });
  };
  return (
    <form class="card form-grid" onSubmit={onSubmit} aria-labelledby={props.id}>
      <h2 id={props.id} class="span-all">
        {props.title}
      </h2>
      {props.children}
      {error && (
        <p class="notice error span-all" role="alert">
          {error}
        </p>
      )}
      <div class="form-actions span-all">
        <button type="button" class="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? props.busyLabel : props.submitLabel}
        </button>
      </div>
    </form>
  );
}

/** A full-width group of checkboxes named `name`, one per option, with `checked` ticked at first. */
export function CheckGroup(props: {
  legend: string;
  name: string;
  options: readonly string[];
  checked: string;
}) {
  return (
    <fieldset class="field span-all">
      <legend>{props.legend}</legend>
      <div class="checks">
        {props.options.map((option) => (
          <label key={option} class="check">
            <input
              type="checkbox"
              name={props.name}
              value={option}
              defaultChecked={option === props.checked}
            />{' '}
            {option}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * The state of a list page that creates items in place: whether the form is open,
 * and the item just created (its one-time secret is shown until the form reopens).
 */
export function useCreating<T>(reload: () => void) {
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<T | null>(null);
  return {
    creating,
    created,
    open: () => {
      setCreated(null);
      setCreating(true);
    },
    cancel: () => setCreating(false),
    done: (item: T) => {
      setCreating(false);
      setCreated(item);
      reload();
    },
  };
}
