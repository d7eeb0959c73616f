import { useEffect, useState } from 'preact/hooks';

/** Every console page lives under /dashboard; addresses are shareable and work with back/forward. */
export const BASE = '/dashboard';

const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = to.startsWith(BASE) ? to : `${BASE}${to}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.scrollTo(0, 0);
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

export interface Route {
  /** path below /dashboard, e.g. "/decisions/dec_1" ("/" for the overview) */
  path: string;
  query: URLSearchParams;
}

function current(): Route {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path: path.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const listener = () => setRoute(current());
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  return route;
}

/** A left click without modifiers on an in-console link navigates in place; others keep the browser's behaviour. */
export function onLinkClick(event: MouseEvent, to: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}
