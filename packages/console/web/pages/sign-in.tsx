import { useState } from 'preact/hooks';
import { describeError } from '../components.tsx';
import { signIn } from '../session.ts';
import type { Session } from '../types.ts';

export function SignInPage(props: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    signIn(key.trim()).then(
      (session) => {
        setKey('');
        props.onSignedIn(session);
      },
      (failure: unknown) => {
        setBusy(false);
        setError(describeError(failure));
      },
    );
  };
  return (
    <main class="sign-in">
      <form class="card sign-in-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <div class="brand large">
          <span class="brand-mark" aria-hidden="true" />
          Verdict
        </div>
        <h1 id="sign-in-title">Sign in to the console</h1>
        <p class="muted">
          Use an API key with the <code>admin</code> scope. The key is exchanged for a session cookie; it is
          not kept in the browser.
        </p>
        <label class="field">
          <span>API key</span>
          <input
            type="password"
            name="apiKey"
            autoComplete="current-password"
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'sign-in-error' : undefined}
          />
        </label>
        {error && (
          <p id="sign-in-error" class="notice error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="button primary wide" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small">
          First start prints an admin key (<code>export VERDICT_API_KEY=…</code>);{' '}
          <code>verdict keys create</code> makes more.
        </p>
      </form>
    </main>
  );
}
