import type { User } from '../../sdk/src/index.js';

/** Admins manage users here once the contract offers user management. */
export function Users({ self }: { self: User }) {
  return (
    <section class="card" aria-labelledby="users-h">
      <h1 id="users-h">Users</h1>
      <p>Signed in as {self.username}.</p>
    </section>
  );
}
