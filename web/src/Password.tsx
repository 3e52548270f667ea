import { useState } from 'preact/hooks';
import { type ConsiliumError, changePassword } from '../../sdk/src/index.js';
import { client, consilium } from './api.js';
import { ErrorNote } from './components.js';

/**
 * The signed-in user's own password change. Ending every other sign-in and API token is on by default: a password
 * changed because it may have leaked should leave no other way in; this sign-in stays.
 */
export function Password({ onChanged }: { onChanged?: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [endOthers, setEndOthers] = useState(true);
  const [done, setDone] = useState<string>();
  const [error, setError] = useState<ConsiliumError>();

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setDone(undefined);
    try {
      await consilium.settle(
        changePassword({ client, body: { currentPassword: current, newPassword: next, endOtherCredentials: endOthers } }),
      );
      setCurrent('');
      setNext('');
      setDone(
        endOthers
          ? 'Password changed. Your other sign-ins ended and your API tokens were revoked; this sign-in stays.'
          : 'Password changed. Your other sign-ins and API tokens keep working.',
      );
      onChanged?.();
    } catch (err) {
      setError(err as ConsiliumError);
    }
  };

  return (
    <section class="card" aria-labelledby="password-h" data-testid="password">
      <h2 id="password-h">Your password</h2>
      <form class="row-form" onSubmit={submit}>
        <label>
          Current password
          <input
            type="password"
            required
            autocomplete="current-password"
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
          />
        </label>
        <label>
          New password
          <input
            type="password"
            required
            minLength={8}
            maxLength={200}
            autocomplete="new-password"
            value={next}
            onInput={(e) => setNext(e.currentTarget.value)}
          />
        </label>
        <label>
          <input type="checkbox" checked={endOthers} onChange={(e) => setEndOthers(e.currentTarget.checked)} /> Sign out
          everywhere else and revoke my API tokens
        </label>
        <button type="submit" class="primary">
          Change password
        </button>
      </form>
      {done && (
        <p role="status" class="muted">
          {done}
        </p>
      )}
      <ErrorNote error={error} />
    </section>
  );
}
