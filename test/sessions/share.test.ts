/**
 * Sharing, archiving and full-text search over real HTTP, on SQLite and on PostgreSQL: a session shared
 * read-only with one user reads for them and for no one else, a revoked share reads as absent again, and
 * a word that only an answer holds finds its session.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionPage, Share, ShareList } from '../../sdk/src/generated/types.gen.js';
import { FakeDebate } from '../support/fake-debate.js';
import { postgres, startPostgres, type TestPostgres } from '../support/postgres.js';
import type { Caller, RunningServer } from '../support/server.js';
import { startServer } from '../support/server.js';

const json = { 'content-type': 'application/json' };

for (const kind of ['sqlite', 'postgres'] as const) {
  const suite = kind === 'postgres' && !postgres.available ? describe.skip : describe;
  suite(`shares, archive and search over HTTP (${kind})`, () => {
    let pg: TestPostgres | undefined;
    let server: RunningServer;
    let grantee: Caller;
    let third: Caller;
    let id: string;
    const word = `quux${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      if (kind === 'postgres') pg = await startPostgres();
      server = await startServer(pg ? { CONSILIUM_DATABASE: await pg.createDatabase() } : {});
      [grantee, third] = await Promise.all([server.newUser(), server.newUser()]);
      // A stored debate of the server's user; the word is in one answer only.
      const d = new FakeDebate({ owner: server.user.id, question: 'Which queue should we use?' });
      const store = server.database.sessions;
      await store.write(d.start().step());
      d.startRound(1);
      for (const slot of [1, 2, 3, 4]) d.answer(1, slot);
      d.answer(1, 5, `Use the ${word} broker.`);
      d.endRound(1);
      await store.write(d.step({ rounds: [1] }));
      d.consensus();
      d.verdict();
      d.end();
      await store.write(d.step({ consensus: true, verdict: true }));
      id = d.session.id;
    });
    afterAll(async () => {
      await server?.close();
      await pg?.stop();
    });

    const readPaths = () => [
      `/sessions/${id}`,
      `/sessions/${id}/events`,
      `/sessions/${id}/export/markdown`,
      `/sessions/${id}/export/json`,
      `/sessions/${id}/thread`,
    ];
    const list = async (who: Caller, query: string) =>
      ((await (await who.fetch(`/sessions?${query}`)).json()) as SessionPage).items;

    it('finds the session by a word only an answer holds, for its owner alone, with its verdict previewed', async () => {
      const [found] = await list(server, `text=${word}`);
      expect(found?.id).toBe(id);
      expect(found?.verdictPreview).toBe('Do not shard yet.');
      // A prefix while typing; the question's substring search does not see answers.
      expect((await list(server, `text=${word.slice(0, -2)}`)).map((s) => s.id)).toStrictEqual([id]);
      expect(await list(server, `q=${word}`)).toStrictEqual([]);
      expect(await list(grantee, `text=${word}`)).toStrictEqual([]);
    });

    it('shares read-only with a named user: they read, follow and export it; a third user still gets 404', async () => {
      for (const path of readPaths()) {
        expect((await grantee.fetch(path)).status, path).toBe(404);
        expect((await third.fetch(path)).status, path).toBe(404);
      }
      const res = await server.fetch(`/sessions/${id}/shares`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ username: grantee.user.username.toUpperCase() }),
      });
      expect(res.status).toBe(200);
      const share = (await res.json()) as Share;
      expect(share).toMatchObject({ userId: grantee.user.id, username: grantee.user.username });
      const listed = (await (await server.fetch(`/sessions/${id}/shares`)).json()) as ShareList;
      expect(listed.items).toStrictEqual([share]);

      for (const path of readPaths()) {
        expect((await grantee.fetch(path)).status, path).toBe(200);
        expect((await third.fetch(path)).status, path).toBe(404);
      }
      expect((await list(grantee, 'shared=true')).map((s) => s.id)).toStrictEqual([id]);
      expect((await list(grantee, `shared=true&text=${word}`)).map((s) => s.id)).toStrictEqual([id]);
      expect(await list(grantee, '')).toStrictEqual([]);
      expect(await list(third, 'shared=true')).toStrictEqual([]);
    });

    it('lets the user it is shared with change nothing: cancel, delete, continue, archive, share all 404', async () => {
      const attempts: [string, RequestInit][] = [
        [`/sessions/${id}/cancel`, { method: 'POST' }],
        [`/sessions/${id}/continue`, { method: 'POST', headers: json, body: '{}' }],
        [`/sessions/${id}`, { method: 'PATCH', headers: json, body: JSON.stringify({ archived: true }) }],
        [`/sessions/${id}/shares`, { method: 'POST', headers: json, body: JSON.stringify({ username: third.user.username }) }],
        [`/sessions/${id}/shares`, { method: 'GET' }],
        [`/sessions/${id}/shares/${grantee.user.id}`, { method: 'DELETE' }],
        [`/sessions/${id}`, { method: 'DELETE' }],
      ];
      for (const [path, init] of attempts) {
        const res = await grantee.fetch(path, init);
        expect(res.status, `${init.method} ${path}`).toBe(404);
        expect(((await res.json()) as { code: string }).code).toBe('not_found');
      }
      expect((await server.fetch(`/sessions/${id}`)).status).toBe(200);
      expect((await list(third, 'shared=true')).map((s) => s.id)).toStrictEqual([]);
    });

    it('refuses a share with an unknown user (404) or with oneself (400)', async () => {
      const unknown = await server.fetch(`/sessions/${id}/shares`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ username: 'nobody-by-this-name' }),
      });
      expect(unknown.status).toBe(404);
      const self = await server.fetch(`/sessions/${id}/shares`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ username: server.user.username }),
      });
      expect(self.status).toBe(400);
    });

    it('archives out of the list and back (owner only)', async () => {
      const patch = (archived: boolean) =>
        server.fetch(`/sessions/${id}`, { method: 'PATCH', headers: json, body: JSON.stringify({ archived }) });
      const archived = await patch(true);
      expect(archived.status).toBe(200);
      expect(((await archived.json()) as { archivedAt?: string }).archivedAt).toEqual(expect.any(String));
      expect((await list(server, '')).map((s) => s.id)).not.toContain(id);
      expect((await list(server, 'archived=true')).map((s) => s.id)).toStrictEqual([id]);
      expect((await list(server, `text=${word}&archived=true`)).map((s) => s.id)).toStrictEqual([id]);
      expect((await server.fetch(`/sessions/${id}`)).status).toBe(200);
      const back = await patch(false);
      expect(((await back.json()) as { archivedAt?: string }).archivedAt).toBeUndefined();
      expect((await list(server, '')).map((s) => s.id)).toContain(id);
    });

    it('a revoked share reads as absent again', async () => {
      const revoke = await server.fetch(`/sessions/${id}/shares/${grantee.user.id}`, { method: 'DELETE' });
      expect(revoke.status).toBe(204);
      for (const path of readPaths()) expect((await grantee.fetch(path)).status, path).toBe(404);
      expect(await list(grantee, 'shared=true')).toStrictEqual([]);
      expect((await server.fetch(`/sessions/${id}/shares/${grantee.user.id}`, { method: 'DELETE' })).status).toBe(404);
    });
  });
}
