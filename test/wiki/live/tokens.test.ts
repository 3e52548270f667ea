/**
 * Module flags against the live extension wiki: `list=consiliumtokenecho` (the test extension of
 * `support/mediawiki.ts`) must be posted and takes a CSRF token, both checked by MediaWiki itself. The
 * builder sends it by POST, `WikiClient` fetches its token through `meta=tokens`, keeps it, and when the
 * wiki no longer takes it (its session ended) fetches it once more and sends the request again; a wiki
 * that denies reading answers with a typed `WikiRightsError`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WikiClient, WikiRightsError } from '../../../sdk/src/wiki/client.js';
import { encodeForm } from '../../../sdk/src/wiki/form.js';
import { defineModule } from '../../../sdk/src/wiki/module.js';
import { query } from '../../../sdk/src/wiki/query.js';
import type { ModuleSpec } from '../../../sdk/src/wiki/types.js';
import {
  createBotPassword,
  mediawiki,
  type PrivateMediaWiki,
  startMediaWiki,
  startPrivateMediaWiki,
  TEST_EXTENSION_MODULE,
} from '../../support/mediawiki.js';
import { poster, specsFrom } from './differential.js';

const userAgent = 'ConsiliumTests/1.0 (https://example.invalid; tests@example.invalid)';

interface Sent {
  method: string;
  params: URLSearchParams;
}

/** A fetch at the network edge that records each request and, unless told to forget, keeps the wiki's cookies. */
function recordingFetch() {
  const sent: Sent[] = [];
  const jar = new Map<string, string>();
  const fetcher: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const body = typeof init?.body === 'string' ? init.body : '';
    sent.push({ method: init?.method ?? 'GET', params: new URLSearchParams(init?.method === 'POST' ? body : url.search) });
    const headers = new Headers(init?.headers);
    if (jar.size > 0) headers.set('Cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(input, { ...init, headers });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  };
  return { fetcher, sent, jar };
}

describe.skipIf(!mediawiki.available)('mustbeposted and token modules through WikiClient, against the live wiki', () => {
  let api: string;
  let spec: ModuleSpec;

  beforeAll(async () => {
    api = (await startMediaWiki({ extensions: true })).api;
    const info = await poster(() => api)({
      action: 'paraminfo',
      modules: `query+${TEST_EXTENSION_MODULE}`,
      helpformat: 'none',
      format: 'json',
      formatversion: '2',
    });
    spec = specsFrom(info, { modules: {} })[0]!;
  }, 180_000);

  const echo = () => defineModule<{ text?: string; token?: string }, 'list', false>(spec);

  it('reads the flags from the wiki’s paraminfo, and sends the module by POST, which the wiki requires', async () => {
    expect(spec).toMatchObject({ mustbeposted: true, parameters: [{ name: 'text' }, { name: 'token', tokentype: 'csrf' }] });
    const q = query({ list: [echo()({ text: 'hi', token: '+\\' })] });
    expect(q.method).toBe('POST');
    // The same request by GET is what MediaWiki refuses.
    const byGet = (await (await fetch(`${api}?${encodeForm(q.params)}`)).json()) as { errors: { code: string }[] };
    expect(byGet.errors[0]!.code).toBe('mustbeposted');
    const { fetcher, sent } = recordingFetch();
    const client = new WikiClient({ apiUrl: api, userAgent, fetch: fetcher, site: false });
    const done = await client.collect<{ consiliumtokenecho: { text: string } }>(q);
    expect(done.query.consiliumtokenecho.text).toBe('hi');
    expect(sent.map((s) => s.method)).toEqual(['POST']);
  });

  it('fetches the token through meta=tokens once, and refreshes it once when the session that issued it ends', async () => {
    const bot = await createBotPassword({ extensions: true });
    const { fetcher, sent, jar } = recordingFetch();
    const client = new WikiClient({ apiUrl: api, userAgent, fetch: fetcher, site: false });
    // Signed in (a bot password), through the same fetch, so its cookies hold the session: the CSRF token belongs to it.
    const { query: login } = await client.request<{ tokens: { logintoken: string } }>({
      action: 'query',
      meta: 'tokens',
      type: 'login',
      format: 'json',
      formatversion: '2',
    });
    const form = {
      action: 'login',
      lgname: bot.user,
      lgpassword: bot.password,
      lgtoken: login.tokens.logintoken,
      format: 'json',
    };
    const signedIn = {
      response: (await (
        await fetcher(api, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: encodeForm(form),
        })
      ).json()) as Record<string, unknown>,
    };
    expect((signedIn.response.login as { result: string }).result).toBe('Success');
    sent.length = 0;

    type Echo = { consiliumtokenecho: { text: string; user: string } };
    const first = await client.collect<Echo>({ list: [echo()({ text: 'one' })] });
    expect(first.query.consiliumtokenecho).toEqual({ text: 'one', user: 'Admin' });
    const second = await client.collect<Echo>({ list: [echo()({ text: 'two' })] });
    expect(second.query.consiliumtokenecho.text).toBe('two');
    const tokenRequests = () => sent.filter((s) => s.params.get('meta') === 'tokens');
    expect(tokenRequests()).toHaveLength(1);
    const signedInToken = sent.at(-1)!.params.get('ctetoken');
    expect(signedInToken).not.toBe('+\\');

    // The session ends: the kept token is stale, the wiki says badtoken, the client fetches a new one and sends again.
    jar.clear();
    sent.length = 0;
    const third = await client.collect<Echo>({ list: [echo()({ text: 'three' })] });
    expect(third.query.consiliumtokenecho.text).toBe('three');
    expect(third.query.consiliumtokenecho.user).not.toBe('Admin');
    expect(sent.map((s) => s.params.get('meta') ?? s.params.get('list'))).toEqual([
      TEST_EXTENSION_MODULE,
      'tokens',
      TEST_EXTENSION_MODULE,
    ]);
    expect(sent[0]!.params.get('ctetoken')).toBe(signedInToken);
    expect(sent[2]!.params.get('ctetoken')).toBe('+\\');
    expect(sent.every((s) => s.method === 'POST' || s.params.get('meta') === 'tokens')).toBe(true);
  });

  it('refreshes only once: a token the wiki keeps refusing is the caller’s badtoken', async () => {
    const { fetcher, sent } = recordingFetch();
    const client = new WikiClient({ apiUrl: api, userAgent, fetch: fetcher, site: false });
    // A token given by the caller is the caller's: not replaced, so the wiki's badtoken comes back as it is.
    await expect(client.collect({ list: [echo()({ text: 'x', token: 'not-a-token' })] })).rejects.toMatchObject({
      code: 'badtoken',
    });
    expect(sent.filter((s) => s.params.get('meta') === 'tokens')).toHaveLength(0);
  });
});

describe.skipIf(!mediawiki.available)('rights a module needs, against the live wiki', () => {
  let wiki: PrivateMediaWiki;
  beforeAll(async () => {
    wiki = await startPrivateMediaWiki();
  }, 120_000);
  afterAll(() => wiki?.close());

  it('a wiki that denies reading answers with a WikiRightsError naming the read right', async () => {
    const client = new WikiClient({ apiUrl: wiki.api, userAgent, site: false });
    const error = await client.collect({ meta: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WikiRightsError);
    expect(error).toMatchObject({ code: 'readapidenied', right: 'read' });
  });
});
