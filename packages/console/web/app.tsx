import { Component, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { whenSignedOut } from './api.ts';
import { ErrorMessage, Link, Loading } from './components.tsx';
import { DecisionPage } from './pages/decision.tsx';
import { DecisionsPage } from './pages/decisions.tsx';
import { KeysPage } from './pages/keys.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { PoliciesPage } from './pages/policies.tsx';
import { PolicyEditorPage } from './pages/policy-editor.tsx';
import { ReviewPage } from './pages/review.tsx';
import { ReviewDecisionPage } from './pages/review-decision.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { UsagePage } from './pages/usage.tsx';
import { WebhookPage } from './pages/webhook.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { type Route, useRoute } from './router.ts';
import { loadSession, signOut } from './session.ts';
import type { Session } from './types.ts';

const NAV = [
  { to: '/', label: 'Overview', section: '' },
  { to: '/decisions', label: 'Decisions', section: 'decisions' },
  { to: '/review', label: 'Review', section: 'review' },
  { to: '/policies', label: 'Policies', section: 'policies' },
  { to: '/keys', label: 'Keys', section: 'keys' },
  { to: '/webhooks', label: 'Webhooks', section: 'webhooks' },
  { to: '/usage', label: 'Usage', section: 'usage' },
];

function Page(props: { route: Route; session: Session }) {
  const [section = '', id] = props.route.path.split('/').filter(Boolean);
  const param = id ? decodeURIComponent(id) : undefined;
  switch (section) {
    case '':
      return <OverviewPage />;
    case 'decisions':
      return param ? <DecisionPage decisionId={param} /> : <DecisionsPage query={props.route.query} />;
    case 'review':
      return param ? (
        <ReviewDecisionPage key={param} decisionId={param} currentKeyId={props.session.keyId} />
      ) : (
        <ReviewPage currentKeyId={props.session.keyId} />
      );
    case 'policies':
      return param ? <PolicyEditorPage policyId={param === 'new' ? null : param} /> : <PoliciesPage />;
    case 'keys':
      return <KeysPage currentKeyId={props.session.keyId} />;
    case 'webhooks':
      return param ? <WebhookPage webhookId={param} /> : <WebhooksPage />;
    case 'usage':
      return <UsagePage />;
    default:
      return (
        <section>
          <h1>Page not found</h1>
          <p>
            There is no console page at this address. <Link to="/">Go to the overview</Link>.
          </p>
        </section>
      );
  }
}

/** A page that fails to render shows what went wrong instead of blanking the console; navigating away resets it. */
class PageBoundary extends Component<
  { path: string; children: ComponentChildren },
  { error: unknown; path: string }
> {
  override state = { error: null as unknown, path: '' };
  override componentDidCatch(error: unknown) {
    this.setState({ error, path: this.props.path });
  }
  override render() {
    if (this.state.error !== null && this.state.path === this.props.path) {
      return <ErrorMessage error={this.state.error} retry={() => this.setState({ error: null })} />;
    }
    return this.props.children;
  }
}

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  const route = useRoute();
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    loadSession().then(setSession);
  }, []);
  const section = route.path.split('/').filter(Boolean)[0] ?? '';
  useEffect(() => {
    const item = NAV.find((n) => n.section === section);
    document.title = session ? `${item?.label ?? 'Verdict'} · Verdict console` : 'Sign in · Verdict console';
  }, [section, session]);

  if (session === undefined) return <Loading label="Loading the Verdict console…" />;
  if (session === null) return <SignInPage onSignedIn={setSession} />;

  const doSignOut = () => {
    signOut().then(
      () => setSession(null),
      () => setSignOutError('Signing out failed; retry.'),
    );
  };
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">
          <span class="brand-mark" aria-hidden="true" />
          Verdict
        </span>
        <nav class="nav" aria-label="Console">
          {NAV.map((item) => (
            <Link key={item.to} to={item.to} class="nav-link" current={item.section === section}>
              {item.label}
            </Link>
          ))}
        </nav>
        <div class="account">
          <span class="muted account-id" title={`Account ${session.accountId}`}>
            {session.operator ? 'Operator' : 'Account'} · {session.accountId}
          </span>
          <button type="button" class="button small" onClick={doSignOut}>
            Sign out
          </button>
        </div>
      </header>
      {signOutError && (
        <p class="notice error" role="alert">
          {signOutError}
        </p>
      )}
      <main id="main" class="main" tabIndex={-1}>
        <PageBoundary path={route.path}>
          <Page route={route} session={session} />
        </PageBoundary>
      </main>
    </div>
  );
}
