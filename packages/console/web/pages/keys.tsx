import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  CheckGroup,
  ConfirmDialog,
  CreateForm,
  describeError,
  Empty,
  ErrorMessage,
  Loading,
  PageHeader,
  SecretOnce,
  StatusBadge,
  TableHead,
  useCreating,
  useLoad,
} from '../components.tsx';
import { formatDate, formatTime } from '../format.ts';
import { type ApiKey, SCOPES } from '../types.ts';

const EXPIRY = [
  { label: 'Never', days: 0 },
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
];

function status(key: ApiKey): { ok: boolean; text: string } {
  if (key.revokedAt) return { ok: false, text: 'Revoked' };
  if (key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) return { ok: false, text: 'Expired' };
  return { ok: true, text: 'Active' };
}

function CreateKey(props: { onCreated: (key: ApiKey) => void; onCancel: () => void }) {
  const submit = (form: FormData) => {
    const scopes = form.getAll('scopes').map(String);
    const days = Number(form.get('expiry'));
    const perMinute = Number(form.get('perMinute'));
    const burstPerSecond = Number(form.get('burstPerSecond'));
    if (scopes.length === 0) return 'Choose at least one scope.';
    return api.post<ApiKey>('/v1/keys', {
      name: String(form.get('name')).trim(),
      scopes,
      ...(days > 0 && { expiresAt: new Date(Date.now() + days * 86_400_000).toISOString() }),
      ...(perMinute > 0 && burstPerSecond > 0 && { rateLimit: { perMinute, burstPerSecond } }),
    });
  };
  return (
    <CreateForm
      id="create-key-title"
      title="Create key"
      submitLabel="Create key"
      busyLabel="Creating…"
      submit={submit}
      onCreated={props.onCreated}
      onCancel={props.onCancel}
    >
      <label class="field">
        <span>Name</span>
        <input name="name" required maxLength={200} placeholder="e.g. production web app" />
      </label>
      <label class="field">
        <span>Expires</span>
        <select name="expiry">
          {EXPIRY.map((e) => (
            <option key={e.days} value={e.days}>
              {e.label}
            </option>
          ))}
        </select>
      </label>
      <CheckGroup legend="Scopes" name="scopes" options={SCOPES} checked="check" />
      <label class="field">
        <span>Requests per minute (optional)</span>
        <input name="perMinute" type="number" min={1} max={1000000} inputMode="numeric" />
      </label>
      <label class="field">
        <span>Burst per second (optional)</span>
        <input name="burstPerSecond" type="number" min={1} max={1000000} inputMode="numeric" />
      </label>
    </CreateForm>
  );
}

export function KeysPage(props: { currentKeyId: string }) {
  const { data, error, loading, reload } = useLoad(() => api.get<{ keys: ApiKey[] }>('/v1/keys'), []);
  const { creating, created, open, cancel, done } = useCreating<ApiKey>(reload);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const accounts = new Set(data?.keys.map((k) => k.accountId));
  const revoke = () => {
    const key = revoking!;
    setRevoking(null);
    api
      .delete(`/v1/keys/${encodeURIComponent(key.id)}`)
      .then(reload, (e: unknown) => setActionError(describeError(e)));
  };
  return (
    <section>
      <PageHeader
        title="Keys"
        description="API keys authenticate your applications. A key is shown once, when it is created."
        actions={
          !creating && (
            <button type="button" class="button primary" onClick={open}>
              Create key
            </button>
          )
        }
      />
      {creating && <CreateKey onCancel={cancel} onCreated={done} />}
      {created?.key && (
        <SecretOnce title={`Key “${created.name}” created.`} value={created.key}>
          Copy it now: it is not shown again.
        </SecretOnce>
      )}
      {actionError && (
        <p class="notice error" role="alert">
          {actionError}
        </p>
      )}
      {error ? <ErrorMessage error={error} retry={reload} /> : null}
      {loading && !data && <Loading />}
      {data && data.keys.length === 0 && <Empty title="No keys yet">Create one for each application.</Empty>}
      {data && data.keys.length > 0 && (
        <div class="card table-card">
          <table class="table">
            <caption class="sr-only">API keys</caption>
            <TableHead
              columns={[
                'Name',
                'Key',
                { label: 'Scopes', narrow: true },
                accounts.size > 1 && { label: 'Account', narrow: true },
                { label: 'Expires', narrow: true },
                { label: 'Rate limit', narrow: true },
                { label: 'Created', narrow: true },
                { label: 'Last used', narrow: true },
                'Status',
                { label: 'Actions', srOnly: true },
              ]}
            />
            <tbody>
              {data.keys.map((key) => {
                const s = status(key);
                return (
                  <tr key={key.id}>
                    <td>{key.name}</td>
                    <td class="nowrap">
                      <code>
                        {key.prefix}…{key.last4}
                      </code>
                    </td>
                    <td class="hide-narrow">{key.scopes.join(', ')}</td>
                    {accounts.size > 1 && <td class="hide-narrow">{key.accountId}</td>}
                    <td class="hide-narrow nowrap">{key.expiresAt ? formatDate(key.expiresAt) : 'Never'}</td>
                    <td class="hide-narrow">
                      {key.rateLimit
                        ? `${key.rateLimit.perMinute}/min, ${key.rateLimit.burstPerSecond}/s`
                        : 'Default'}
                    </td>
                    <td class="hide-narrow nowrap">{formatDate(key.createdAt)}</td>
                    <td class="hide-narrow nowrap">
                      {key.lastUsedAt ? formatTime(key.lastUsedAt) : 'Never'}
                    </td>
                    <td>
                      <StatusBadge ok={s.ok}>{s.text}</StatusBadge>
                    </td>
                    <td>
                      {!key.revokedAt && (
                        <button
                          type="button"
                          class="button small danger-outline"
                          onClick={() => setRevoking(key)}
                          aria-label={`Revoke ${key.name}`}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        danger
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Requests with <strong>{revoking?.name}</strong> (
          <code>
            {revoking?.prefix}…{revoking?.last4}
          </code>
          ) will be refused at once. This cannot be undone.
        </p>
        {revoking?.id === props.currentKeyId && (
          <p class="notice warning">You are signed in with this key: revoking it signs you out.</p>
        )}
      </ConfirmDialog>
    </section>
  );
}
