import { useEffect, useRef, useState } from 'preact/hooks';
import { type ConsiliumError, login, type User } from '../../sdk/src/index.js';
import { client, consilium } from './api.js';
import { ErrorNote } from './components.js';

/** Sign-in: the server answers with an HttpOnly session cookie, which every later call carries. */
export function Login({ onSignedIn }: { onSignedIn: (user: User) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ConsiliumError>();
  // The page's one task: start on its first field. (`autofocus` would not do on a form shown again after sign-out.)
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const result = await consilium.settle(login({ client, body: { username, password } }));
      onSignedIn(result.user);
    } catch (err) {
      setError(err as ConsiliumError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="login">
      <form class="card" onSubmit={submit} aria-labelledby="login-h">
        <h1 id="login-h">Sign in to Consilium</h1>
        <label for="username">Username</label>
        <input
          ref={first}
          id="username"
          name="username"
          autocomplete="username"
          required
          value={username}
          onInput={(e) => setUsername(e.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
