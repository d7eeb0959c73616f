import { api, request, setCsrfToken } from './api.ts';
import type { Session } from './types.ts';

export async function loadSession(): Promise<Session | null> {
  try {
    const session = await request<Session>('GET', '/dashboard/session');
    setCsrfToken(session.csrfToken);
    return session;
  } catch {
    return null;
  }
}

/** The key goes to the service once, in the body of this request; only the HttpOnly cookie stays behind. */
export async function signIn(apiKey: string): Promise<Session> {
  const session = await api.post<Session>('/dashboard/session', { apiKey });
  setCsrfToken(session.csrfToken);
  return session;
}

export async function signOut(): Promise<void> {
  try {
    await api.delete('/dashboard/session');
  } finally {
    setCsrfToken(null);
  }
}
