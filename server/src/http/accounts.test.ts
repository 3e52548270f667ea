/**
 * How the account handlers turn the domain's refusals into problems. Over HTTP the contract's own validation
 * refuses a bad username or a short password before the domain sees it (`test/auth/flows.test.ts` covers what
 * gets through), so the domain's `invalid` with its field is checked here, on a bare Hono context.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AccountError } from '../accounts/store.js';
import { accountProblem } from './accounts.js';

async function answer(error: unknown, field?: string) {
  const app = new Hono();
  app.onError((thrown, c) => c.text(`thrown: ${thrown.message}`, 500));
  app.post('*', (c) => accountProblem(c, error, field));
  const res = await app.request('http://localhost/users', { method: 'POST' });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), body: res.status === 500 ? text : JSON.parse(text) };
}

describe('accountProblem', () => {
  it('not_found is 404 and conflict 409, with the domain’s message and never a field', async () => {
    expect(await answer(new AccountError('not_found', 'No user "usr_x".'), 'body.username')).toEqual({
      status: 404,
      type: 'application/problem+json',
      body: expect.objectContaining({ status: 404, code: 'not_found', detail: 'No user "usr_x".', instance: '/users' }),
    });
    const conflict = await answer(new AccountError('conflict', 'The username "a" is taken.'), 'body.username');
    expect(conflict).toMatchObject({ status: 409, body: { code: 'conflict', detail: 'The username "a" is taken.' } });
    expect(conflict.body.errors).toBeUndefined();
  });

  it('invalid is 400 validation_failed, naming the field when the handler knows it', async () => {
    const message = 'A password is 8 to 200 characters.';
    expect(await answer(new AccountError('invalid', message), 'body.password')).toEqual({
      status: 400,
      type: 'application/problem+json',
      body: expect.objectContaining({
        status: 400,
        code: 'validation_failed',
        detail: message,
        errors: [{ path: 'body.password', message }],
      }),
    });
    const bare = await answer(new AccountError('invalid', message));
    expect(bare).toMatchObject({ status: 400, body: { code: 'validation_failed', detail: message } });
    expect(bare.body.errors).toBeUndefined();
  });

  it('anything else is no refusal: it is thrown on, for the app’s error handler', async () => {
    expect(await answer(new Error('disk full'), 'body.username')).toEqual({
      status: 500,
      type: expect.any(String),
      body: 'thrown: disk full',
    });
  });
});
