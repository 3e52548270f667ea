import { useEffect, useState } from 'preact/hooks';
import {
  type ConsiliumError,
  createUser,
  deleteUser,
  listUsers,
  resetUserPassword,
  type User,
  updateUser,
} from '../../sdk/src/index.js';
import { client, consilium } from './api.js';
import { ErrorNote } from './components.js';
import { formatDate } from './format.js';

/** Admins only: create users (a generated password is shown once), change roles, disable, reset passwords, remove. */
export function Users({ self }: { self: User }) {
  const [users, setUsers] = useState<User[]>();
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<'user' | 'admin'>('user');
  const [secret, setSecret] = useState<{ username: string; password: string }>();
  const [error, setError] = useState<ConsiliumError>();

  const reload = () =>
    consilium.settle(listUsers({ client })).then(
      (list) => setUsers(list.items),
      (err) => setError(err),
    );
  useEffect(() => {
    void reload();
  }, []);

  const act = async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
      await reload();
    } catch (err) {
      setError(err as ConsiliumError);
    }
  };
  const create = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const created = await consilium.settle(createUser({ client, body: { username: username.trim(), role } }));
      if (created.password) setSecret({ username: created.user.username, password: created.password });
      setUsername('');
    });
  };

  return (
    <section class="card" aria-labelledby="users-h" data-testid="users">
      <h1 id="users-h">Users</h1>
      <form class="row-form" onSubmit={create}>
        <label>
          Username
          <input
            required
            pattern="[A-Za-z0-9][A-Za-z0-9._@\-]{0,63}"
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.currentTarget.value as 'user' | 'admin')}>
            <option value="user">user</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <button type="submit" class="primary">
          Create user
        </button>
      </form>
      {secret && (
        <div class="created" role="status">
          <p>
            <strong>Password for {secret.username}:</strong> shown only once; hand it over now.
          </p>
          <code class="secret" data-testid="new-password">
            {secret.password}
          </code>
        </div>
      )}
      <ErrorNote error={error} />
      {users && (
        <div class="scroll-x">
          <table class="users">
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => {
                const me = u.id === self.id;
                return (
                  <tr key={u.id} data-user={u.username}>
                    <td>
                      {u.username}
                      {me ? ' (you)' : ''}
                    </td>
                    <td>{u.role}</td>
                    <td>{u.disabled ? <span class="error">disabled</span> : 'active'}</td>
                    <td>{formatDate(u.createdAt)}</td>
                    <td class="row-actions">
                      {!me && (
                        <>
                          <button
                            type="button"
                            onClick={() =>
                              act(() =>
                                consilium.settle(
                                  updateUser({
                                    client,
                                    path: { userId: u.id },
                                    body: { role: u.role === 'admin' ? 'user' : 'admin' },
                                  }),
                                ),
                              )
                            }
                          >
                            Make {u.role === 'admin' ? 'user' : 'admin'}
                          </button>
                          <button
                            type="button"
                            onClick={() =>
                              (u.disabled ||
                                confirm(
                                  `Disable ${u.username}? Their sign-ins end and their API tokens are revoked, for good: enabling them again revives none.`,
                                )) &&
                              act(() =>
                                consilium.settle(updateUser({ client, path: { userId: u.id }, body: { disabled: !u.disabled } })),
                              )
                            }
                          >
                            {u.disabled ? 'Enable' : 'Disable'}
                          </button>
                          <button
                            type="button"
                            onClick={() =>
                              confirm(
                                `Reset the password of ${u.username}? Their sign-ins end and their API tokens are revoked.`,
                              ) &&
                              act(async () => {
                                const reset = await consilium.settle(
                                  resetUserPassword({ client, path: { userId: u.id }, body: {} }),
                                );
                                if (reset.password) setSecret({ username: u.username, password: reset.password });
                              })
                            }
                          >
                            Reset password
                          </button>
                          <button
                            type="button"
                            class="danger"
                            aria-label={`Remove ${u.username}`}
                            onClick={() =>
                              confirm(`Remove ${u.username}, their sign-ins and tokens?`) &&
                              act(() => consilium.settle(deleteUser({ client, path: { userId: u.id } })))
                            }
                          >
                            Remove
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
