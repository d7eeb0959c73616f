import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  describeError,
  Empty,
  ErrorMessage,
  Link,
  Loading,
  PageHeader,
  SecretOnce,
  StatusBadge,
  useLoad,
} from '../components.tsx';
import { truncate } from '../format.ts';
import { EVENT_TYPES, type Webhook } from '../types.ts';

function CreateWebhook(props: { onCreated: (webhook: Webhook) => void; onCancel: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const events = form.getAll('events').map(String);
    if (events.length === 0) {
      setError('Choose at least one event.');
      return;
    }
    const description = String(form.get('description') ?? '').trim();
    setBusy(true);
    setError(null);
    api
      .post<Webhook>('/v1/webhooks', {
        url: String(form.get('url')).trim(),
        events,
        ...(description && { description }),
      })
      .then(props.onCreated, (failure: unknown) => {
        setBusy(false);
        setError(describeError(failure));
      });
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title" class="span-all">
        Add an endpoint
      </h2>
      <label class="field span-all">
        <span>Endpoint URL</span>
        <input name="url" type="url" required placeholder="https://example.com/verdict-events" />
      </label>
      <label class="field span-all">
        <span>Description (optional)</span>
        <input name="description" maxLength={500} />
      </label>
      <fieldset class="field span-all">
        <legend>Events</legend>
        <div class="checks">
          {EVENT_TYPES.map((e) => (
            <label key={e} class="check">
              <input type="checkbox" name="events" value={e} defaultChecked={e === 'decision.flagged'} /> {e}
            </label>
          ))}
        </div>
      </fieldset>
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
          {busy ? 'Checking the endpoint…' : 'Add endpoint'}
        </button>
      </div>
    </form>
  );
}

export function WebhooksPage() {
  const { data, error, loading, reload } = useLoad(
    () => api.get<{ webhooks: Webhook[] }>('/v1/webhooks'),
    [],
  );
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Webhook | null>(null);
  return (
    <section>
      <PageHeader
        title="Webhooks"
        description="Endpoints that receive signed events when decisions are made or batches finish."
        actions={
          !creating && (
            <button
              type="button"
              class="button primary"
              onClick={() => {
                setCreated(null);
                setCreating(true);
              }}
            >
              Add endpoint
            </button>
          )
        }
      />
      {creating && (
        <CreateWebhook
          onCancel={() => setCreating(false)}
          onCreated={(webhook) => {
            setCreating(false);
            setCreated(webhook);
            reload();
          }}
        />
      )}
      {created?.secret && (
        <SecretOnce title="Endpoint added. Its signing secret:" value={created.secret}>
          Copy it now; it is not shown again (you can rotate it later).{' '}
          <Link to={`/webhooks/${encodeURIComponent(created.id)}`}>Open the endpoint</Link>
        </SecretOnce>
      )}
      {error ? <ErrorMessage error={error} retry={reload} /> : null}
      {loading && !data && <Loading />}
      {data && data.webhooks.length === 0 && (
        <Empty title="No endpoints yet">
          <p>Add an HTTPS endpoint to receive decision events, signed with its own secret.</p>
        </Empty>
      )}
      {data && data.webhooks.length > 0 && (
        <div class="card table-card">
          <table class="table">
            <caption class="sr-only">Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col" class="hide-narrow">
                  Events
                </th>
                <th scope="col" class="hide-narrow">
                  Description
                </th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {data.webhooks.map((w) => (
                <tr key={w.id}>
                  <td class="content-cell">
                    <Link to={`/webhooks/${encodeURIComponent(w.id)}`}>{truncate(w.url, 60)}</Link>
                  </td>
                  <td class="hide-narrow">{w.events.join(', ')}</td>
                  <td class="hide-narrow">{w.description ?? '—'}</td>
                  <td>
                    <StatusBadge ok={w.enabled}>{w.enabled ? 'Enabled' : 'Disabled'}</StatusBadge>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
