import { api } from '../api.ts';
import {
  CheckGroup,
  CreateForm,
  Empty,
  ErrorMessage,
  Link,
  Loading,
  PageHeader,
  SecretOnce,
  StatusBadge,
  TableHead,
  useCreating,
  useLoad,
} from '../components.tsx';
import { truncate } from '../format.ts';
import { EVENT_TYPES, type Webhook } from '../types.ts';

function CreateWebhook(props: { onCreated: (webhook: Webhook) => void; onCancel: () => void }) {
  const submit = (form: FormData) => {
    const events = form.getAll('events').map(String);
    if (events.length === 0) return 'Choose at least one event.';
    const description = String(form.get('description') ?? '').trim();
    return api.post<Webhook>('/v1/webhooks', {
      url: String(form.get('url')).trim(),
      events,
      ...(description && { description }),
    });
  };
  return (
    <CreateForm
      id="create-webhook-title"
      title="Add an endpoint"
      submitLabel="Add endpoint"
      busyLabel="Checking the endpoint…"
      submit={submit}
      onCreated={props.onCreated}
      onCancel={props.onCancel}
    >
      <label class="field span-all">
        <span>Endpoint URL</span>
        <input name="url" type="url" required placeholder="https://example.com/verdict-events" />
      </label>
      <label class="field span-all">
        <span>Description (optional)</span>
        <input name="description" maxLength={500} />
      </label>
      <CheckGroup legend="Events" name="events" options={EVENT_TYPES} checked="decision.flagged" />
    </CreateForm>
  );
}

export function WebhooksPage() {
  const { data, error, loading, reload } = useLoad(
    () => api.get<{ webhooks: Webhook[] }>('/v1/webhooks'),
    [],
  );
  const { creating, created, open, cancel, done } = useCreating<Webhook>(reload);
  return (
    <section>
      <PageHeader
        title="Webhooks"
        description="Endpoints that receive signed events when decisions are made or batches finish."
        actions={
          !creating && (
            <button type="button" class="button primary" onClick={open}>
              Add endpoint
            </button>
          )
        }
      />
      {creating && <CreateWebhook onCancel={cancel} onCreated={done} />}
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
            <TableHead
              columns={[
                'Endpoint',
                { label: 'Events', narrow: true },
                { label: 'Description', narrow: true },
                'Status',
              ]}
            />
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
