import { useEffect, useState } from 'preact/hooks';
import type { ApiToken, ApiTokenCreated, ConsiliumError } from '../../sdk/src/index.js';
import { consilium } from './api.js';
import { ErrorNote } from './components.js';
import { formatDate } from './format.js';
import { Password } from './Password.js';

/** The signed-in user's API tokens: create (the secret is shown once), list, revoke; and their password change. */
export function Tokens() {
  const [tokens, setTokens] = useState<ApiToken[]>();
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const [created, setCreated] = useState<ApiTokenCreated>();
  const [error, setError] = useState<ConsiliumError>();

  const reload = () => consilium.auth.tokens.list().then(setTokens, (err) => setError(err));
  useEffect(() => {
    void reload();
  }, []);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const token = await consilium.auth.tokens.create(name.trim(), { ...(days && { expiresInDays: Number(days) }) });
      setCreated(token);
      setName('');
      setDays('');
      await reload();
    } catch (err) {
      setError(err as ConsiliumError);
    }
  };
  const revoke = async (token: ApiToken) => {
    if (!confirm(`Revoke the token “${token.name}”? Programs using it stop working at once.`)) return;
    setError(undefined);
    try {
      await consilium.auth.tokens.revoke(token.id);
      if (created?.id === token.id) setCreated(undefined);
      await reload();
    } catch (err) {
      setError(err as ConsiliumError);
    }
  };

  return (
    <>
      <section class="card" aria-labelledby="tokens-h">
        <h1 id="tokens-h">API tokens</h1>
        <p class="muted small">
          For the SDK, the CLI and scripts: sent as <code>Authorization: Bearer …</code>.
        </p>
        <form class="row-form" onSubmit={create}>
          <label>
            Name
            <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Expires in (days, optional)
            <input type="number" min={1} value={days} onInput={(e) => setDays(e.currentTarget.value)} />
          </label>
          <button type="submit" class="primary">
            Create token
          </button>
        </form>
        {created && (
          <div class="created" role="status">
            <p>
              <strong>Copy this token now:</strong> it is shown only once.
            </p>
            <code class="secret" data-testid="new-token">
              {created.token}
            </code>{' '}
            <button type="button" onClick={() => navigator.clipboard?.writeText(created.token)}>
              Copy
            </button>
          </div>
        )}
        <ErrorNote error={error} />
        {tokens && tokens.length === 0 && <p class="muted">No tokens yet.</p>}
        {tokens && tokens.length > 0 && (
          <div class="scroll-x">
            <table class="tokens">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Starts with</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.map((t) => (
                  <tr key={t.id} data-token-id={t.id}>
                    <td>{t.name}</td>
                    <td>
                      <code>{t.prefix}…</code>
                    </td>
                    <td>{formatDate(t.createdAt)}</td>
                    <td>{t.lastUsedAt ? formatDate(t.lastUsedAt) : 'never'}</td>
                    <td>{t.expiresAt ? formatDate(t.expiresAt) : 'never'}</td>
                    <td>
                      <button type="button" class="danger" onClick={() => revoke(t)} aria-label={`Revoke ${t.name}`}>
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <Password onChanged={() => void reload()} />
    </>
  );
}
