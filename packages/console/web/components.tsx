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
