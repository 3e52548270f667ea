/** Sign-in, sign-out, the caller's own account and tokens, and (admins only) user management over HTTP. */
import type { Context } from 'hono';
import { setCookie } from 'hono/cookie';
import type { Accounts } from '../accounts/accounts.js';
import { AccountError } from '../accounts/store.js';
import type { Handlers } from '../generated/routes.js';
import { SESSION_COOKIE, sameOrigin, secureCookies } from './auth.js';
import type { AppEnv } from './deps.js';
import { problem } from './problem.js';

type AccountOperations =
  | 'login'
  | 'logout'
  | 'getCurrentUser'
  | 'changePassword'
  | 'listApiTokens'
  | 'createApiToken'
  | 'revokeApiToken'
  | 'listUsers'
  | 'createUser'
  | 'updateUser'
  | 'deleteUser'
  | 'resetUserPassword';

export interface AccountHandlerDeps {
  accounts: Accounts;
  publicOrigin?: URL | undefined;
}

/** An account operation the domain refused, as the problem a client can act on. */
export function accountProblem(c: Context, error: unknown, field?: string): Response {
  if (!(error instanceof AccountError)) throw error;
  if (error.code === 'not_found') return problem(c, 404, 'not_found', { detail: error.message });
  if (error.code === 'conflict') return problem(c, 409, 'conflict', { detail: error.message });
  return problem(c, 400, 'validation_failed', {
    detail: error.message,
    ...(field && { errors: [{ path: field, message: error.message }] }),
  });
}

const noUser = (c: Context, id: string) => problem(c, 404, 'not_found', { detail: `No user "${id}".` });

export function accountHandlers(deps: AccountHandlerDeps): Pick<Handlers<AppEnv>, AccountOperations> {
  return { ...signInHandlers(deps), ...tokenHandlers(deps), ...userHandlers(deps) };
}

/** Signing in and out, and the caller's own account. */
function signInHandlers({
  accounts,
  publicOrigin,
}: AccountHandlerDeps): Pick<Handlers<AppEnv>, 'login' | 'logout' | 'getCurrentUser' | 'changePassword'> {
  return {
    login: async (c) => {
      const { username, password } = c.req.valid('json');
      // Login CSRF: a page elsewhere must not sign the browser in as someone else. Clients that send no Origin pass.
      if (
        (c.req.header('origin') !== undefined || c.req.header('sec-fetch-site') === 'cross-site') &&
        !sameOrigin(c, publicOrigin)
      ) {
        return problem(c, 403, 'forbidden', { detail: 'Sign in from this service’s own origin.' });
      }
      // Attempts are throttled before this handler runs (`loginRateLimit` in app.ts).
      const signedIn = await accounts.signIn(username, password, c.get('signInTicket'));
      if (!signedIn) return problem(c, 401, 'unauthorized', { detail: 'Wrong username or password, or the user is disabled.' });
      setCookie(c, SESSION_COOKIE, signedIn.secret, {
        path: '/',
        httpOnly: true,
        sameSite: 'Lax',
        secure: secureCookies(c, publicOrigin),
        expires: new Date(signedIn.expiresAt),
      });
      c.header('cache-control', 'no-store');
      return c.json({ user: signedIn.user, expiresAt: signedIn.expiresAt }, 200);
    },

    logout: async (c) => {
      const credential = c.get('credential');
      if (credential.kind === 'signIn') {
        await accounts.signOut(credential.id);
        setCookie(c, SESSION_COOKIE, '', {
          path: '/',
          httpOnly: true,
          sameSite: 'Lax',
          secure: secureCookies(c, publicOrigin),
          maxAge: 0,
        });
      }
      return c.body(null, 204);
    },

    getCurrentUser: (c) => c.json(c.get('user'), 200),

    changePassword: async (c) => {
      const { currentPassword, newPassword, endOtherCredentials } = c.req.valid('json');
      const { kind, id } = c.get('credential');
      try {
        // Absent, `endOtherCredentials` is true: the contract's default, filled in by the validator.
        const changed = await accounts.changePassword(c.get('user').id, currentPassword, newPassword, {
          endOthers: endOtherCredentials,
          keep: { kind, id },
        });
        if (!changed) {
          return problem(c, 400, 'validation_failed', {
            detail: 'The current password is wrong.',
            errors: [{ path: 'body.currentPassword', message: 'does not match' }],
          });
        }
      } catch (error) {
        return accountProblem(c, error, 'body.newPassword');
      }
      return c.body(null, 204);
    },
  };
}

/** The caller's own API tokens. */
function tokenHandlers({
  accounts,
}: AccountHandlerDeps): Pick<Handlers<AppEnv>, 'listApiTokens' | 'createApiToken' | 'revokeApiToken'> {
  return {
    listApiTokens: async (c) => c.json({ items: await accounts.listTokens(c.get('user').id) }, 200),

    createApiToken: async (c) => {
      const { name, expiresInDays } = c.req.valid('json');
      c.header('cache-control', 'no-store');
      return c.json(await accounts.createToken(c.get('user').id, name, expiresInDays, c.get('credential').epoch), 201);
    },

    revokeApiToken: async (c) => {
      const { tokenId } = c.req.valid('param');
      // Someone else's token reads as absent, as their sessions do.
      return (await accounts.revokeToken(c.get('user').id, tokenId))
        ? c.body(null, 204)
        : problem(c, 404, 'not_found', { detail: `No token "${tokenId}".` });
    },
  };
}

/** User management, for admins (the security table keeps everyone else out). */
function userHandlers({
  accounts,
}: AccountHandlerDeps): Pick<Handlers<AppEnv>, 'listUsers' | 'createUser' | 'updateUser' | 'deleteUser' | 'resetUserPassword'> {
  return {
    listUsers: async (c) => c.json({ items: await accounts.listUsers() }, 200),

    createUser: async (c) => {
      const body = c.req.valid('json');
      try {
        c.header('cache-control', 'no-store');
        return c.json(await accounts.createUser(body), 201);
      } catch (error) {
        return accountProblem(c, error, 'body.username');
      }
    },

    updateUser: async (c) => {
      const { userId } = c.req.valid('param');
      try {
        return c.json(await accounts.updateUser(userId, c.req.valid('json')), 200);
      } catch (error) {
        return accountProblem(c, error);
      }
    },

    deleteUser: async (c) => {
      const { userId } = c.req.valid('param');
      try {
        await accounts.deleteUser(userId);
      } catch (error) {
        return accountProblem(c, error);
      }
      return c.body(null, 204);
    },

    resetUserPassword: async (c) => {
      const { userId } = c.req.valid('param');
      const { password } = c.req.valid('json');
      if (!(await accounts.getUser(userId))) return noUser(c, userId);
      try {
        const generated = await accounts.setPassword(userId, password);
        c.header('cache-control', 'no-store');
        return c.json(generated === undefined ? {} : { password: generated }, 200);
      } catch (error) {
        return accountProblem(c, error, 'body.password');
      }
    },
  };
}
