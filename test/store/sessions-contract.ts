/**
 * The contract every SessionStore keeps, as one vitest suite: SQLite and PostgreSQL call
 * `describeSessionStoreContract` with their own `open`. Sessions are built by `FakeDebate`.
 *
 * `open` must return a database over the same storage on every call (one serves the suite; another
 * is opened to prove writes persist). The suite never assumes the storage is empty: ids and owners
 * are unique per run. `recoverInterrupted` marks every `running` session in the storage, so nothing
 * else may rely on running sessions in it while the suite runs.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DebateEvent, Session } from '../../sdk/src/generated/types.gen.js';
import {
  CANCELLED_ERROR,
  INTERRUPTED_ERROR,
  type ListPage,
  type SessionStore,
  type Step,
  StoreError,
  summaryOf,
  UNSAVED_SEQ_LIMIT,
} from '../../server/src/sessions/store.js';
import type { Database } from '../../server/src/store/open.js';
import { debateSteps, FakeDebate, rejection, sessionId } from '../support/fake-debate.js';

async function allPages(store: SessionStore, owner: string, limit: number, q?: string): Promise<ListPage[]> {
  const pages: ListPage[] = [];
  let page = await store.list({ owner, limit, ...(q !== undefined && { q }) });
  pages.push(page);
  while (page.next) {
    page = await store.list({ owner, limit, after: page.next, ...(q !== undefined && { q }) });
    pages.push(page);
    if (pages.length > 100) throw new Error('list never ends');
  }
  return pages;
}

export function describeSessionStoreContract(name: string, open: () => Promise<Database>, opts?: { skip?: string }): void {
  const suite = opts?.skip ? describe.skip : describe;
  suite(`SessionStore contract: ${name}${opts?.skip ? ` (skipped: ${opts.skip})` : ''}`, () => {
    let database: Database;
    let store: SessionStore;
    const run = randomUUID().slice(0, 8);
    const owner = (label: string) => `usr_${label}_${run}`;

    beforeAll(async () => {
      database = await open();
      store = database.sessions;
    });
    afterAll(async () => {
      await database?.close();
    });

    describe('round trip', () => {
      it('reads back exactly the last step written, after every kind of step', async () => {
        const d = new FakeDebate({ owner: owner('trip') });
        const check = async (step: Step) => {
          await store.write(step);
          expect(await store.get(d.session.id)).toStrictEqual(step.session);
          expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);
        };

        // Header only: no rounds, no consensus, no optional fields.
        await check(d.start().step());
        // A round with answers, one of them failed (carrying `error`, with and without `status`).
        d.startRound(1);
        d.answer(1, 1);
        d.answer(1, 2, 'Ünïcödé, "double" and \'single\' quotes, \\ backslashes, emoji 🧮 and\nnewlines');
        d.fail(1, 3, { code: 'rate_limited', message: 'Too many requests', status: 429, retryable: true, attempts: 3 });
        d.fail(1, 4);
        await check(d.step({ rounds: [1] }));
        // Rewriting a round whole: fewer answers, another order.
        const [first, second] = d.round(1).answers;
        const fifth = d.answer(1, 5);
        d.round(1).answers = [second!, first!, fifth];
        d.round(1).missingSlots = [];
        await check(d.step({ rounds: [1] }));
        // Two rounds in one step, the later one empty so far.
        d.endRound(1);
        d.startRound(2);
        d.answer(2, 1);
        d.startRound(3);
        await check(d.step({ rounds: [1, 2, 3] }));
        d.answer(3, 2, 'final answer', 0);
        await check(d.step({ rounds: [3] }));
        // Consensus, then verdict, then the final status.
        d.consensus();
        await check(d.step({ consensus: true }));
        d.verdict();
        await check(d.step({ verdict: true }));
        d.end('partial');
        await check(d.step());
      });

      it('writes the consensus and verdict only when a step flags them, and clears a flagged one the session lacks', async () => {
        const d = new FakeDebate({ owner: owner('trip') });
        d.start();
        d.consensus();
        d.verdict();
        await store.write(d.step({ consensus: true, verdict: true }));
        const { consensus, verdict } = d.session;
        // Gone from the session in memory, but no step says so yet: the stored ones stay.
        delete d.session.consensus;
        delete d.session.verdict;
        await store.write(d.step());
        expect(await store.get(d.session.id)).toStrictEqual({ ...d.session, consensus, verdict });
        await store.write(d.step({ consensus: true }));
        expect(await store.get(d.session.id)).toStrictEqual({ ...d.session, verdict });
        await store.write(d.step({ verdict: true }));
        expect(await store.get(d.session.id)).toStrictEqual(d.session);
      });

      it('keeps an unstructured verdict and a session without rounds', async () => {
        const d = new FakeDebate({ owner: owner('trip'), mode: 'synthesis', roundsRequested: 1 });
        d.start();
        d.verdict('unstructured');
        d.end('completed');
        const step = d.step({ verdict: true });
        await store.write(step);
        expect(await store.get(d.session.id)).toStrictEqual(step.session);
      });

      it('knows nothing of a session it never stored', async () => {
        const id = sessionId();
        expect(await store.get(id)).toBeUndefined();
        expect(await store.events(id, 0)).toStrictEqual([]);
        expect(await store.delete(id)).toBe(false);
      });

      it('persists: another store opened on the same storage reads what this one wrote', async () => {
        const d = new FakeDebate({ owner: owner('persist') });
        const steps = debateSteps(d, 2);
        for (const step of steps) await store.write(step);
        const other = await open();
        try {
          expect(await other.sessions.get(d.session.id)).toStrictEqual(d.session);
          expect(await other.sessions.events(d.session.id, 0)).toStrictEqual(d.raised);
        } finally {
          await other.close();
        }
      });
    });

    describe('threads and links', () => {
      it('stores thread, parent, synthesis source and early stop, and lists a thread oldest first', async () => {
        const who = owner('thread');
        const root = new FakeDebate({ owner: who, createdAt: '2025-03-01T10:00:00.000Z' });
        await store.write(root.start().step());
        expect(await store.thread(root.session.id)).toStrictEqual([]);
        // The first follow-up makes the root a thread: its header gains threadId.
        Object.assign(root.session, { threadId: root.session.id });
        await store.write(root.step());
        const follow = new FakeDebate({ owner: who, createdAt: '2025-03-01T10:05:00.000Z' });
        Object.assign(follow.session, {
          threadId: root.session.id,
          parentId: root.session.id,
          sourceSessionId: root.session.id,
          earlyStop: { afterRound: 2, roundsSaved: 2, callsSaved: 10, tokensSaved: 4321 },
        });
        await store.write(follow.start().step());
        const other = new FakeDebate({ owner: who, createdAt: '2025-03-01T10:01:00.000Z' });
        await store.write(other.start().step());

        expect(await store.get(root.session.id)).toStrictEqual(root.session);
        expect(await store.get(follow.session.id)).toStrictEqual(follow.session);
        expect(await store.get(other.session.id)).toStrictEqual(other.session);
        expect(await store.thread(root.session.id)).toStrictEqual([summaryOf(root.session), summaryOf(follow.session)]);
        expect(summaryOf(follow.session)).toMatchObject({ threadId: root.session.id, parentId: root.session.id });
        const page = await store.list({ owner: who, limit: 10 });
        expect(page.items).toStrictEqual([follow.session, other.session, root.session].map(summaryOf));
      });

      it("stores a deep debate's panel choice, label mappings, rankings and prompt cuts with the session, and lists stay summaries", async () => {
        const who = owner('panel');
        const d = new FakeDebate({ owner: who });
        Object.assign(d.session, {
          panel: {
            slots: [2, 4, 5],
            synthesizer: 3,
            anonymous: true,
            ranking: true,
            models: [{ slot: 2, model: 'gpt-4.1-mini' }],
          },
          labels: [
            {
              round: 2,
              purpose: 'debate',
              reader: 2,
              responses: [
                { label: 'A', slot: 5 },
                { label: 'B', slot: 4 },
              ],
            },
            { round: 1, purpose: 'ranking', reader: 4, responses: [{ label: 'A', slot: 2 }] },
          ],
          rankings: [
            {
              round: 1,
              ballots: [
                {
                  slot: 2,
                  order: [
                    { slot: 5, reason: "It's clearer" },
                    { slot: 4, reason: 'Thin' },
                  ],
                },
              ],
              missing: [{ slot: 4, reason: 'invalid ranking: left out response B' }],
              aggregate: [
                { slot: 5, rank: 1, points: 1, ballots: 1, score: 1, tied: false },
                { slot: 2, rank: 2, points: 0, ballots: 0, score: 0, tied: true },
                { slot: 4, rank: 2, points: 0, ballots: 1, score: 0, tied: true },
              ],
              note: 'Tied on Borda points per ballot',
            },
          ],
          promptCuts: [{ round: 2, reader: 2, slot: 5, quotedRound: 1, chars: 5_000_000, keptChars: 160_000 }],
        });
        await store.write(d.start().step());
        expect(await store.get(d.session.id)).toStrictEqual(d.session);
        const [summary] = (await store.list({ owner: who, limit: 1 })).items;
        expect(summary).toStrictEqual(summaryOf(d.session));
        expect(summary).not.toHaveProperty('rankings');
      });
    });

    describe('grounding', () => {
      it('stores a grounded session’s sources, their text exactly, citations and lookups', async () => {
        const d = new FakeDebate({ owner: owner('grounding'), createdAt: '2025-03-02T10:00:00.000Z' });
        d.start();
        Object.assign(d.session, {
          grounding: {
            source: 'team-wiki',
            status: 'partial',
            note: 'The wiki team-wiki could not be read in round 2 (network).',
            pages: [
              {
                n: 1,
                title: 'Deploy policy',
                pageId: 7,
                revisionId: 42,
                url: 'http://wiki.invalid/index.php?oldid=42',
                text: 'Deploys on "Tuesdays" — ünïcode, \'quotes\', `ticks`\nand lines.',
                sha256: 'ab'.repeat(32),
                retrievedBy: 'search',
              },
            ],
            citations: [
              { round: 1, slot: 2, ref: '1', quote: 'Deploys on', verified: true, source: 1 },
              { round: 0, slot: 1, ref: '9', verified: false, reason: 'not_retrieved' },
            ],
            verifiedCitations: 1,
            unverifiedCitations: 1,
            lookups: [{ round: 0, tool: 'retrieve', input: 'deploy', ok: true, pages: [1], at: '2025-03-02T10:00:01.000Z' }],
            usage: { requests: 3, bytes: 2048, ms: 12 },
          },
        });
        await store.write(d.step());
        d.end('completed');
        await store.write(d.step());
        expect(await store.get(d.session.id)).toStrictEqual(d.session);
      });

      it('gives back every page’s text, pages read in later steps too; replay keeps what the events carried', async () => {
        const d = new FakeDebate({ owner: owner('sources'), createdAt: '2025-03-03T10:00:00.000Z' });
        await store.write(d.start().step({ run: 'first' }));
        d.readPage('Deploy policy', 'Deploys on Tuesdays.');
        await store.write(d.step({ run: 'later' }));
        expect(await store.get(d.session.id)).toStrictEqual(d.session);
        d.startRound(1).answer(1, 1);
        d.readPage('Rollback runbook', 'Rollbacks take "four" minutes — ünïcode\nand lines.');
        await store.write(d.step({ rounds: [1], run: 'later' }));
        d.end('completed');
        await store.write(d.step({ run: 'later' }));
        const stored = await store.get(d.session.id);
        expect(stored).toStrictEqual(d.session);
        expect(stored!.grounding!.pages.map((p) => p.text)).toEqual([
          'Deploys on Tuesdays.',
          'Rollbacks take "four" minutes — ünïcode\nand lines.',
        ]);
        expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);
        // Deleted, its sources go with it.
        await store.delete(d.session.id);
        expect(await store.get(d.session.id)).toBeUndefined();
      });
    });

    describe('list', () => {
      it('pages newest first, ties on createdAt broken by id, `after` exclusive, `next` only when more', async () => {
        const who = owner('list');
        const tie = new Date(Date.UTC(2025, 2, 1, 12)).toISOString();
        const made: Session[] = [];
        for (let i = 0; i < 7; i++) {
          // Three share a createdAt; their ids are written out of order.
          const createdAt = i >= 2 && i < 5 ? tie : new Date(Date.UTC(2025, 2, 1, 10 + i)).toISOString();
          const d = new FakeDebate({ id: `${sessionId().slice(0, 20)}${'QAZ'[i % 3]}${i}`, owner: who, createdAt });
          d.start();
          if (i % 2 === 0) d.end('completed');
          await store.write(d.step());
          made.push(structuredClone(d.session));
        }
        const expected = [...made]
          .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
          .map(summaryOf);

        const whole = await store.list({ owner: who, limit: 100 });
        expect(whole).toStrictEqual({ items: expected });

        for (const limit of [1, 2, 3, 7]) {
          const pages = await allPages(store, who, limit);
          expect(pages.flatMap((p) => p.items)).toStrictEqual(expected);
          expect(pages.length).toBe(Math.ceil(7 / limit));
          for (const page of pages.slice(0, -1)) {
            const last = page.items.at(-1)!;
            expect(page.items.length).toBe(limit);
            expect(page.next).toStrictEqual({ createdAt: last.createdAt, id: last.id });
          }
          expect(pages.at(-1)!.next).toBeUndefined();
        }

        // `after` any position, even one no stored session has.
        for (let k = 0; k < expected.length; k++) {
          const at = expected[k]!;
          const page = await store.list({ owner: who, limit: 100, after: { createdAt: at.createdAt, id: at.id } });
          expect(page.items).toStrictEqual(expected.slice(k + 1));
        }
        // expected[2..4] share `tie`; this id sorts just above expected[3]'s.
        const between = { createdAt: tie, id: `${expected[3]!.id}0` };
        const page = await store.list({ owner: who, limit: 100, after: between });
        expect(page.items).toStrictEqual(expected.slice(3));
      });

      it('shows the latest header of a session that was written again', async () => {
        const who = owner('relist');
        const d = new FakeDebate({ owner: who });
        await store.write(d.start().step());
        d.startRound(1);
        d.answer(1, 1);
        d.end('cancelled', 'cancelled by the owner');
        await store.write(d.step({ rounds: [1] }));
        expect(await store.list({ owner: who, limit: 10 })).toStrictEqual({ items: [summaryOf(d.session)] });
      });

      it('filters by a case-insensitive substring of the question, taking %, _ and \\ literally', async () => {
        const who = owner('q');
        const questions = [
          'Are we 100% sure about WAL?',
          'Is 1000 sure enough?',
          'Rename snake_case columns?',
          'Rename snakeXcase columns?',
          'Escape back\\slash paths?',
          'Escape back/slash paths?',
          'PLAIN question about Sharding',
        ];
        const byQuestion = new Map<string, string>();
        for (const [i, question] of questions.entries()) {
          const d = new FakeDebate({ owner: who, question, createdAt: new Date(Date.UTC(2025, 3, 1, i)).toISOString() });
          await store.write(d.start().step());
          byQuestion.set(question, d.session.id);
        }
        const found = async (q: string, limit = 100) =>
          (await allPages(store, who, limit, q)).flatMap((p) => p.items.map((s) => s.question));

        expect(await found('100%')).toStrictEqual(['Are we 100% sure about WAL?']);
        expect(await found('%')).toStrictEqual(['Are we 100% sure about WAL?']);
        expect(await found('snake_case')).toStrictEqual(['Rename snake_case columns?']);
        expect(await found('_')).toStrictEqual(['Rename snake_case columns?']);
        expect(await found('back\\slash')).toStrictEqual(['Escape back\\slash paths?']);
        expect(await found('\\')).toStrictEqual(['Escape back\\slash paths?']);
        expect(await found('sharding')).toStrictEqual(['PLAIN question about Sharding']);
        expect(await found('plain QUESTION')).toStrictEqual(['PLAIN question about Sharding']);
        expect(await found('rename', 1)).toStrictEqual(['Rename snakeXcase columns?', 'Rename snake_case columns?']);
        expect(await found('no such words')).toStrictEqual([]);
        expect(await store.list({ owner: who, limit: 1, q: 'no such words' })).toStrictEqual({ items: [] });
        expect(await found('?', 3)).toHaveLength(questions.length - 1);
      });

      it('shows an owner only their own sessions', async () => {
        const [alice, bob] = [owner('alice'), owner('bob')];
        const a = new FakeDebate({ owner: alice, question: 'Shared words' });
        const b = new FakeDebate({ owner: bob, question: 'Shared words' });
        await Promise.all([store.write(a.start().step()), store.write(b.start().step())]);
        expect((await store.list({ owner: alice, limit: 10 })).items.map((s) => s.id)).toStrictEqual([a.session.id]);
        expect((await store.list({ owner: bob, limit: 10, q: 'shared' })).items.map((s) => s.id)).toStrictEqual([b.session.id]);
        expect(await store.list({ owner: owner('nobody'), limit: 10 })).toStrictEqual({ items: [] });
        // Without an owner: everyone's (an admin's explicit request).
        const everyone = (await store.list({ limit: 100, q: 'shared words' })).items.map((s) => s.id);
        expect(everyone).toEqual(expect.arrayContaining([a.session.id, b.session.id]));
      });
    });

    describe('archive, shares and full-text search', () => {
      const userRecord = (label: string) => {
        const at = new Date().toISOString();
        const id = `usr_${label}${run}${randomUUID().slice(0, 6)}`.replaceAll('-', '');
        return {
          id,
          username: `${label}-${id}`,
          role: 'user' as const,
          passwordHash: 'scrypt$x',
          disabled: false,
          epoch: 0,
          createdAt: at,
          updatedAt: at,
        };
      };

      it('archives a session out of the list and back; a step leaves the flag alone', async () => {
        const who = owner('archive');
        const d = new FakeDebate({ owner: who, createdAt: '2025-07-02T00:00:00.000Z' });
        await store.write(d.start().step());
        const other = new FakeDebate({ owner: who, createdAt: '2025-07-01T00:00:00.000Z' });
        await store.write(other.start().step());
        const at = '2026-11-26T10:00:00.000Z';
        expect(await store.setArchived(d.session.id, at)).toBe(true);
        expect(await store.setArchived('ses_NOSUCHSESSION', at)).toBe(false);
        expect((await store.get(d.session.id))?.archivedAt).toBe(at);
        expect((await store.list({ owner: who, limit: 10 })).items.map((s) => s.id)).toStrictEqual([other.session.id]);
        const archived = await store.list({ owner: who, limit: 10, archived: true });
        expect(archived.items).toStrictEqual([summaryOf({ ...d.session, archivedAt: at })]);
        // The run goes on writing: the session stays archived.
        d.startRound(1);
        d.answer(1, 1);
        await store.write(d.step({ rounds: [1] }));
        expect((await store.get(d.session.id))?.archivedAt).toBe(at);
        expect(await store.setArchived(d.session.id, undefined)).toBe(true);
        expect(await store.get(d.session.id)).toStrictEqual(d.session);
        expect((await store.list({ owner: who, limit: 10 })).items.map((s) => s.id)).toStrictEqual([
          d.session.id,
          other.session.id,
        ]);
      });

      it('shares read-only with named users, revocably; a share lists the session for them alone', async () => {
        const [grantee, third] = [userRecord('grantee'), userRecord('third')];
        await database.accounts.createUser(grantee);
        await database.accounts.createUser(third);
        const who = owner('sharer');
        const d = new FakeDebate({ owner: who, question: 'Shared with one reader' });
        await store.write(d.start().step());
        const unshared = new FakeDebate({ owner: who });
        await store.write(unshared.start().step());

        const share = await store.share(d.session.id, grantee.id, '2026-11-26T10:00:00.000Z');
        expect(share).toStrictEqual({ userId: grantee.id, createdAt: '2026-11-26T10:00:00.000Z' });
        // Sharing again keeps the first share.
        expect(await store.share(d.session.id, grantee.id, '2026-11-26T11:00:00.000Z')).toStrictEqual(share);
        expect(await store.share('ses_NOSUCHSESSION', grantee.id, '2026-11-26T11:00:00.000Z')).toBeUndefined();
        expect(await store.shares(d.session.id)).toStrictEqual([share]);
        expect(await store.isSharedWith(d.session.id, grantee.id)).toBe(true);
        expect(await store.isSharedWith(d.session.id, third.id)).toBe(false);
        expect(await store.isSharedWith(unshared.session.id, grantee.id)).toBe(false);
        const sharedList = await store.list({ sharedWith: grantee.id, owner: grantee.id, limit: 10 });
        expect(sharedList.items).toStrictEqual([summaryOf(d.session)]);
        expect((await store.list({ sharedWith: third.id, limit: 10 })).items).toStrictEqual([]);
        expect((await store.list({ owner: grantee.id, limit: 10 })).items).toStrictEqual([]);

        expect(await store.unshare(d.session.id, grantee.id)).toBe(true);
        expect(await store.unshare(d.session.id, grantee.id)).toBe(false);
        expect(await store.isSharedWith(d.session.id, grantee.id)).toBe(false);
        expect((await store.list({ sharedWith: grantee.id, limit: 10 })).items).toStrictEqual([]);
        // Deleting the session (or the user) deletes its shares.
        await store.share(d.session.id, third.id, '2026-11-26T12:00:00.000Z');
        await store.delete(d.session.id);
        expect(await store.shares(d.session.id)).toStrictEqual([]);
        expect((await store.list({ sharedWith: third.id, limit: 10 })).items).toStrictEqual([]);
      });

      it('finds a word only an answer holds, one only the verdict holds, by prefix too; a deleted session is gone from the index', async () => {
        const who = owner('fts');
        const word = `zyx${run.replace(/[^a-z0-9]/gi, '')}`;
        const found = async (text: string) => (await store.list({ owner: who, limit: 10, text })).items.map((s) => s.id);
        // Written as the recorder writes a run: its first step, then later ones naming only what they change, so a
        // later step re-indexes the session only for what it writes (an answer's round, the verdict).
        const d = new FakeDebate({ owner: who, question: 'Which storage engine?' });
        const later = (changed: Omit<Step, 'session' | 'events' | 'run'> = {}) =>
          store.write(d.step({ ...changed, run: 'later' }));
        await store.write(d.start().step({ run: 'first' }));
        d.startRound(1);
        for (const slot of [1, 2, 3]) d.answer(1, slot);
        d.endRound(1);
        await later({ rounds: [1] });
        const plain = new FakeDebate({ owner: who, question: 'Nothing to find here' });
        await store.write(plain.start().step({ run: 'first' }));
        expect(await found(word)).toStrictEqual([]);

        // An answer of a later step (a second round).
        d.startRound(2);
        await later({ rounds: [2] });
        d.answer(2, 3, `Consider the ${word}Engine, whose Ünïcödé docs say "lsm".`);
        await later({ rounds: [2] });
        expect(await found(`${word}engine`)).toStrictEqual([d.session.id]);
        expect(await found(`${word.toUpperCase()}ENG`)).toStrictEqual([d.session.id]);
        expect(await found(`storage ${word}engine`)).toStrictEqual([d.session.id]);
        expect(await found(`${word}engine nowhere`)).toStrictEqual([]);
        // A word followed by more text is whole, not a prefix; text with no word finds nothing.
        expect(await found(`${word}eng.`)).toStrictEqual([]);
        expect(await found('%')).toStrictEqual([]);
        expect(await found('ünïcödé docs')).toStrictEqual([d.session.id]);
        // Another owner's session with the same word is not theirs to find.
        const stranger = new FakeDebate({ owner: owner('stranger'), question: `About ${word}Engine` });
        await store.write(stranger.start().step({ run: 'first' }));
        expect(await found(`${word}engine`)).toStrictEqual([d.session.id]);
        // Filters combine with the search.
        expect((await store.list({ owner: who, limit: 10, text: `${word}engine`, mode: 'single' })).items).toStrictEqual([]);
        expect((await store.list({ owner: who, limit: 10, text: `${word}engine`, status: d.session.status })).items).toHaveLength(
          1,
        );
        // The round rewritten with that answer's text changed: the word is gone from the index.
        d.round(2).answers[0]!.text = 'Consider nothing.';
        await later({ rounds: [2] });
        expect(await found(`${word}engine`)).toStrictEqual([]);

        // The verdict, in a step of its own that writes no round: its words (the actions' too) are found.
        d.verdict();
        d.session.verdict!.summary = `Take the ${word}Verdict route.`;
        expect(await found(`${word}verdict`)).toStrictEqual([]);
        await later({ verdict: true });
        expect(await found(`${word}verdict`)).toStrictEqual([d.session.id]);
        expect(await found('prototype')).toStrictEqual([d.session.id]);
        // Rewritten (a stored verdict replaced), with other words: those are found, the old ones no longer.
        d.session.verdict = {
          ...d.session.verdict!,
          summary: `The ${word}Rewrite holds.`,
          actions: {
            P0: [{ title: 'Benchmark first', rationale: 'Then decide.', supportingSlots: [1], supportingRounds: [2] }],
            P1: [],
            P2: [],
          },
        };
        await later({ verdict: true });
        expect(await found(`${word}rewrite`)).toStrictEqual([d.session.id]);
        expect(await found('benchmark')).toStrictEqual([d.session.id]);
        expect(await found(`${word}verdict`)).toStrictEqual([]);
        expect(await found('prototype')).toStrictEqual([]);
        // A later step that writes neither keeps the index as it was.
        d.end('completed');
        await later();
        await store.archivesDone();
        expect(await found(`${word}rewrite`)).toStrictEqual([d.session.id]);
        expect(await store.delete(d.session.id)).toBe(true);
        expect(await found('benchmark')).toStrictEqual([]);
      });

      it('filters by mode, status and creation time', async () => {
        const who = owner('filters');
        const made: Session[] = [];
        for (const [i, [mode, status]] of (
          [
            ['single', 'completed'],
            ['parallel', 'failed'],
            ['deep', 'completed'],
          ] as const
        ).entries()) {
          const d = new FakeDebate({ owner: who, mode, createdAt: new Date(Date.UTC(2025, 5, 1 + i)).toISOString() });
          d.start();
          d.end(status);
          await store.write(d.step());
          made.push(d.session);
        }
        const ids = async (q: Partial<Parameters<SessionStore['list']>[0]>) =>
          (await store.list({ owner: who, limit: 10, ...q })).items.map((s) => s.id);
        expect(await ids({ mode: 'parallel' })).toStrictEqual([made[1]!.id]);
        expect(await ids({ status: 'completed' })).toStrictEqual([made[2]!.id, made[0]!.id]);
        expect(await ids({ from: '2025-06-02T00:00:00Z' })).toStrictEqual([made[2]!.id, made[1]!.id]);
        expect(await ids({ to: '2025-06-02T00:00:00Z' })).toStrictEqual([made[0]!.id]);
        expect(await ids({ from: '2025-06-02T00:00:00+02:00', to: '2025-06-03T00:00:00.000Z' })).toStrictEqual([made[1]!.id]);
      });
    });

    describe('delete', () => {
      it('removes the session with its rounds, answers, consensus, verdict and events', async () => {
        const who = owner('delete');
        const d = new FakeDebate({ owner: who });
        for (const step of debateSteps(d, 2)) await store.write(step);
        const keep = new FakeDebate({ owner: who });
        for (const step of debateSteps(keep, 1)) await store.write(step);

        expect(await store.delete(d.session.id)).toBe(true);
        expect(await store.get(d.session.id)).toBeUndefined();
        expect(await store.events(d.session.id, 0)).toStrictEqual([]);
        expect((await store.list({ owner: who, limit: 10 })).items.map((s) => s.id)).toStrictEqual([keep.session.id]);
        expect(await store.delete(d.session.id)).toBe(false);
        expect(await store.get(keep.session.id)).toStrictEqual(keep.session);
        expect(await store.events(keep.session.id, 0)).toStrictEqual(keep.raised);

        // The same id starts clean: its old events (seq from 1) and rounds are gone, not hidden.
        const again = new FakeDebate({ id: d.session.id, owner: who, question: 'Asked again' });
        again.start().startRound(1);
        again.answer(1, 3);
        const step = again.step({ rounds: [1] });
        await store.write(step);
        expect(await store.get(d.session.id)).toStrictEqual(step.session);
        expect(await store.events(d.session.id, 0)).toStrictEqual(again.raised);
      });
    });

    describe('events', () => {
      it('returns the stored events after a seq, in order, thousands of deltas included', async () => {
        const d = new FakeDebate({ owner: owner('events') });
        await store.write(d.start().step());
        d.startRound(1);
        d.answer(1, 1, 'x'.repeat(3000), 3000);
        await store.write(d.step({ rounds: [1] }));
        d.answer(1, 2, 'short', 2);
        await store.write(d.step({ rounds: [1] }));

        const all = d.raised;
        expect(all.length).toBe(3006);
        expect(await store.events(d.session.id, 0)).toStrictEqual(all);
        for (const after of [1, 2, 1500, 3003, 3005]) {
          expect(await store.events(d.session.id, after)).toStrictEqual(all.filter((e) => e.seq > after));
        }
        expect(await store.events(d.session.id, all.length)).toStrictEqual([]);
      });

      it('keeps every event body byte for byte: quotes, backslashes, line separators, emoji, NUL, a lone surrogate', async () => {
        const d = new FakeDebate({ owner: owner('events-hostile') });
        await store.write(d.start().step());
        d.startRound(1);
        // NUL and lone surrogates reach the engine from a provider's JSON escapes (`\u0000`, `\ud800`).
        const hostile = `'; DROP TABLE events; -- '' "q" \\ \u2028\u2029 \n\t \u0000 \ud800 x\udc00 🧮 ${"'".repeat(50)}`;
        d.answer(1, 1, hostile, 1);
        // One delta per UTF-16 unit from the quote on: the NUL, the lone surrogates, and the emoji's halves apart.
        const units = hostile.slice(30, 49);
        for (let i = 0; i < units.length; i++) d.raise({ type: 'answer.delta', round: 1, slot: 2, delta: units[i]! });
        // With another session in the same write, as a busy store batches them.
        const other = new FakeDebate({ owner: owner('events-hostile') });
        await Promise.all([store.write(d.step({ rounds: [1] })), store.write(other.start().step())]);
        const stored = await store.events(d.session.id, 0);
        expect(stored).toStrictEqual(d.raised);
        expect(stored.map((e) => (e.type === 'answer.delta' ? e.delta : '')).join('')).toBe(hostile + units);
        expect(await store.events(other.session.id, 0)).toStrictEqual(other.raised);
      });
    });

    describe('archives', () => {
      /** Three slots streaming at once (their deltas interleaved, hostile text included), then a streamed verdict. */
      async function streamed(d: FakeDebate): Promise<void> {
        await store.write(d.start().step());
        d.startRound(1, [1, 2, 3]);
        const texts = [1, 2, 3].map((slot) =>
          `Slot ${slot}: '; DROP TABLE events; -- "q" \\ \u2028 \u0000 \ud800 🧮 `.repeat(slot + 2),
        );
        const at = [0, 0, 0];
        for (let i = 0; at.some((n, k) => n < texts[k]!.length); i++) {
          const k = (i * 7) % 3;
          if (at[k]! >= texts[k]!.length) continue;
          const size = 1 + (i % 5);
          d.raise({ type: 'answer.delta', round: 1, slot: k + 1, delta: texts[k]!.slice(at[k], at[k]! + size) });
          at[k] = at[k]! + size;
          // A step now and then, as the recorder flushes deltas.
          if (i % 40 === 39) await store.write(d.step({ rounds: [1] }));
        }
        for (const k of [0, 1, 2]) d.answer(1, k + 1, texts[k], 0);
        d.endRound(1);
        await store.write(d.step({ rounds: [1] }));
        for (const [attempt, field, delta] of [
          [1, 'summary', 'Do not '],
          [1, 'summary', 'shard yet.'],
          [2, 'summary', 'Do not shard yet.'],
          [2, 'answer', 'Keep one database.'],
        ] as const) {
          d.raise({ type: 'verdict.delta', slot: 2, attempt, field, delta });
        }
        d.verdict();
        await store.write(d.step({ verdict: true }));
      }

      it("archives a session's events as it ends: replay and resume from every seq give event for event what they gave before", async () => {
        const d = new FakeDebate({ owner: owner('archive') });
        await streamed(d);
        const id = d.session.id;
        const seqs = d.raised.map((e) => e.seq);
        // The uncompacted session, resumed from every seq it has.
        const before = new Map<number, DebateEvent[]>();
        for (const after of [0, ...seqs]) before.set(after, await store.events(id, after));
        expect(before.get(0)).toStrictEqual(d.raised);
        expect(await store.archive(id)).toBe(false); // running: never archived

        d.end();
        await store.write(d.step());
        const end = d.raised.at(-1)!;
        // Archived by the write that ended it: nothing is left to archive.
        await store.archivesDone();
        expect(await store.archive(id)).toBe(false);
        for (const after of [0, ...seqs]) {
          expect(await store.events(id, after)).toStrictEqual([...before.get(after)!, end]);
        }
        expect(await store.events(id, end.seq)).toStrictEqual([]);
        expect(await store.events(id, end.seq + 5)).toStrictEqual([]);
        const deltas = (await store.events(id, 0)).filter((e) => e.type === 'answer.delta' && e.slot === 2);
        expect(deltas.map((e) => (e.type === 'answer.delta' ? e.delta : '')).join('')).toBe(
          d.session.rounds[0]!.answers[1]!.text,
        );
      });

      it('archives ended sessions left unarchived, and an archived interrupted session continues as before', async () => {
        const d = new FakeDebate({ owner: owner('archive-resume') });
        await streamed(d);
        await store.recoverInterrupted(new Date(Date.UTC(2025, 5, 1, 8)));
        const interrupted = await store.events(d.session.id, 0);
        expect(interrupted.at(-1)).toMatchObject({ type: 'session.ended', status: 'interrupted' });
        expect(await store.archiveEnded(10_000)).toBeGreaterThanOrEqual(1);
        expect(await store.archive(d.session.id)).toBe(false);
        for (const after of [0, 1, 50, 200, d.lastSeq]) {
          expect(await store.events(d.session.id, after)).toStrictEqual(interrupted.filter((e) => e.seq > after));
        }

        const resumed = (await store.resumeInterrupted(d.session.id, new Date(Date.UTC(2025, 5, 1, 9))))!;
        expect(resumed.afterSeq).toBe(interrupted.at(-1)!.seq);
        expect(resumed.progress).toStrictEqual(d.raised.filter((e) => e.type !== 'answer.delta' && e.type !== 'verdict.delta'));
        expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);
        // The continued run ends; its session is archived again with the new events.
        const ts = new Date(Date.UTC(2025, 5, 1, 9, 1)).toISOString();
        const completed: Session = { ...resumed.session, status: 'completed', updatedAt: ts, completedAt: ts };
        const ended = {
          v: 1,
          type: 'session.ended',
          sessionId: d.session.id,
          seq: resumed.afterSeq + 1,
          ts,
          status: 'completed',
          missingSlots: [],
          usage: completed.usage,
          cost: completed.cost,
        } satisfies DebateEvent;
        await store.write({ session: completed, events: [ended] });
        await store.archivesDone();
        expect(await store.archive(d.session.id)).toBe(false);
        expect(await store.events(d.session.id, 0)).toStrictEqual([...d.raised, ended]);
        expect(await store.events(d.session.id, 3)).toStrictEqual([...d.raised, ended].filter((e) => e.seq > 3));
      });

      it("keeps why a session did not complete (the run's reason, the store's own for an interrupt and its cancel, none once resumed) and its unmatched labels", async () => {
        const d = new FakeDebate({ owner: owner('end-reason') });
        await store.write(d.start().step());
        const reason = 'quorum_not_met: round 2 had 0 answers, the quorum is 3';
        const ts = new Date(Date.UTC(2025, 5, 1, 7)).toISOString();
        const partial: Session = {
          ...structuredClone(d.session),
          status: 'partial',
          updatedAt: ts,
          completedAt: ts,
          endReason: reason,
          unmatchedLabels: [{ round: 2, reader: 3, statement: 'Shard by owner', text: 'Response Z' }],
        };
        await store.write({ session: partial, events: [] });
        expect(await store.get(d.session.id)).toMatchObject({ endReason: reason, unmatchedLabels: partial.unmatchedLabels });

        const running = new FakeDebate({ owner: owner('end-reason') });
        await store.write(running.start().step());
        await store.recoverInterrupted(new Date(Date.UTC(2025, 5, 1, 8)));
        expect((await store.get(running.session.id))?.endReason).toBe(INTERRUPTED_ERROR);
        const resumed = (await store.resumeInterrupted(running.session.id, new Date(Date.UTC(2025, 5, 1, 9))))!;
        expect(resumed.session.endReason).toBeUndefined();
        expect(await store.get(running.session.id)).toMatchObject({ status: 'running' });
        expect((await store.get(running.session.id))?.endReason).toBeUndefined();

        await store.recoverInterrupted(new Date(Date.UTC(2025, 5, 1, 10)));
        expect(await store.cancelInterrupted(running.session.id, new Date(Date.UTC(2025, 5, 1, 11)))).toMatchObject({
          status: 'cancelled',
          endReason: CANCELLED_ERROR,
        });
      });

      it('deletes sessions created before a time, never running ones, with their events', async () => {
        const who = owner('retention');
        const old = new FakeDebate({ owner: who, createdAt: '2019-03-01T00:00:00.000Z' });
        for (const step of debateSteps(old, 1)) await store.write(step);
        const oldRunning = new FakeDebate({ owner: who, createdAt: '2019-03-02T00:00:00.000Z' });
        await store.write(oldRunning.start().step());
        const recent = new FakeDebate({ owner: who, createdAt: '2019-06-01T00:00:00.000Z' });
        for (const step of debateSteps(recent, 1)) await store.write(step);

        const deleted = await store.deleteCreatedBefore(new Date('2019-04-01T00:00:00.000Z'), 100);
        expect(deleted).toContain(old.session.id);
        expect(deleted).not.toContain(oldRunning.session.id);
        expect(deleted).not.toContain(recent.session.id);
        expect(await store.get(old.session.id)).toBeUndefined();
        expect(await store.events(old.session.id, 0)).toStrictEqual([]);
        expect(await store.get(oldRunning.session.id)).toBeDefined();
        expect(await store.events(recent.session.id, 0)).toStrictEqual(recent.raised);
        expect(await store.deleteCreatedBefore(new Date('2019-04-01T00:00:00.000Z'), 100)).toStrictEqual([]);
      });
    });

    describe('recoverInterrupted', () => {
      it('marks only running sessions interrupted, keeps their answers, names every incomplete slot and appends session.ended above anything shown', async () => {
        const who = owner('recover');
        const midRound = new FakeDebate({ owner: who });
        await store.write(midRound.start().step());
        midRound.startRound(1);
        midRound.answer(1, 1);
        midRound.fail(1, 2);
        await store.write(midRound.step({ rounds: [1] }));
        // A session whose first step stored no events.
        const silent = new FakeDebate({ owner: who });
        await store.write(silent.step());
        // Stopped while writing its verdict: round 1 ended whole, the synthesizer had not finished.
        const synthesizing = new FakeDebate({ owner: who, roundsRequested: 1 });
        await store.write(synthesizing.start().step());
        synthesizing.startRound(1, [1, 2]);
        synthesizing.answer(1, 1);
        synthesizing.answer(1, 2);
        synthesizing.endRound(1);
        synthesizing.raise({
          type: 'synthesis.started',
          synthesizer: { slot: 1, provider: 'anthropic', model: 'claude-sonnet-4-5', reason: 'default', participated: true },
        });
        await store.write(synthesizing.step({ rounds: [1] }));
        const finished = new FakeDebate({ owner: who });
        for (const step of debateSteps(finished, 1)) await store.write(step);

        const now = new Date(Date.UTC(2025, 5, 1, 8));
        const recovered = (await store.recoverInterrupted(now)).filter((s) => s.owner === who);
        const ts = now.toISOString();
        const incomplete = new Map([
          [midRound, [2, 3, 4, 5]],
          [silent, []],
          [synthesizing, [1]],
        ]);
        const interrupted = (d: FakeDebate): Session => ({
          ...structuredClone(d.session),
          status: 'interrupted',
          missingSlots: incomplete.get(d)! as Session['missingSlots'],
          updatedAt: ts,
          completedAt: ts,
          endReason: INTERRUPTED_ERROR,
        });
        expect(recovered.sort((a, b) => (a.id < b.id ? -1 : 1))).toStrictEqual(
          [interrupted(midRound), interrupted(silent), interrupted(synthesizing)].sort((a, b) => (a.id < b.id ? -1 : 1)),
        );

        for (const d of [midRound, silent, synthesizing]) {
          expect(await store.get(d.session.id)).toStrictEqual(interrupted(d));
          const events = await store.events(d.session.id, 0);
          expect(events.slice(0, -1)).toStrictEqual(d.raised);
          const ended = events.at(-1)!;
          expect(ended).toMatchObject({
            v: 1,
            type: 'session.ended',
            sessionId: d.session.id,
            seq: d.lastSeq + UNSAVED_SEQ_LIMIT + 1,
            ts,
            status: 'interrupted',
            missingSlots: incomplete.get(d),
            usage: d.session.usage,
            cost: d.session.cost,
          });
          expect(ended.type === 'session.ended' && typeof ended.error === 'string' && ended.error.length > 0).toBe(true);
          // Resuming after any seq a stopped run could have shown ends with it.
          expect(await store.events(d.session.id, d.lastSeq + UNSAVED_SEQ_LIMIT)).toStrictEqual([ended]);
        }
        expect(await store.get(finished.session.id)).toStrictEqual(finished.session);
        expect(await store.events(finished.session.id, 0)).toStrictEqual(finished.raised);

        // Nothing of ours is running any more.
        expect((await store.recoverInterrupted(new Date())).filter((s) => s.owner === who)).toStrictEqual([]);
      });
    });

    describe('resumeInterrupted', () => {
      it('takes an interrupted session back to running once, without its interrupted end, and the continued run writes above that end', async () => {
        const who = owner('resume');
        const d = new FakeDebate({ owner: who });
        await store.write(d.start().step());
        d.startRound(1);
        for (const slot of [1, 2, 3, 4, 5] as const) d.answer(1, slot);
        d.endRound(1);
        d.startRound(2);
        d.answer(2, 1);
        d.fail(2, 2);
        await store.write(d.step({ rounds: [1, 2] }));
        const finished = new FakeDebate({ owner: who });
        for (const step of debateSteps(finished, 1)) await store.write(step);
        await store.recoverInterrupted(new Date(Date.UTC(2025, 5, 1, 8)));
        const end = (await store.events(d.session.id, 0)).at(-1)!;
        expect(end).toMatchObject({ type: 'session.ended', status: 'interrupted' });

        expect(await store.resumeInterrupted(sessionId(), new Date())).toBeUndefined();
        const notResumable = await rejection(store.resumeInterrupted(finished.session.id, new Date()));
        expect(notResumable).toBeInstanceOf(StoreError);
        expect((notResumable as StoreError).code).toBe('conflict');

        const now = new Date(Date.UTC(2025, 5, 1, 9));
        // Two at once: exactly one gets it; the other finds it running.
        const attempts = await Promise.allSettled([
          store.resumeInterrupted(d.session.id, now),
          store.resumeInterrupted(d.session.id, now),
        ]);
        const won = attempts.filter((a) => a.status === 'fulfilled');
        const lost = attempts.filter((a) => a.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict' });
        const resumed = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<SessionStore['resumeInterrupted']>>>).value!;

        // As stored, missing slots included (the continued run's first step rewrites them); only running again.
        const running: Session = {
          ...structuredClone(d.session),
          status: 'running',
          missingSlots: [2, 3, 4, 5],
          updatedAt: now.toISOString(),
        };
        expect(resumed.session).toStrictEqual(running);
        expect(await store.get(d.session.id)).toStrictEqual(running);
        expect(resumed.afterSeq).toBe(end.seq);
        expect(resumed.afterSeq).toBe(d.lastSeq + UNSAVED_SEQ_LIMIT + 1);
        expect(resumed.progress).toStrictEqual(d.raised.filter((e) => e.type !== 'answer.delta' && e.type !== 'verdict.delta'));
        // The interrupted end is gone: the stream goes on from where the stopped run left it.
        expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);

        // The continued run's first step lands above the removed end; its end is the session's only one.
        const ts = new Date(now.getTime() + 1000).toISOString();
        const completed: Session = { ...running, status: 'completed', updatedAt: ts, completedAt: ts };
        const ended = {
          v: 1,
          type: 'session.ended',
          sessionId: d.session.id,
          seq: resumed.afterSeq + 1,
          ts,
          status: 'completed',
          missingSlots: [],
          usage: completed.usage,
          cost: completed.cost,
        } satisfies DebateEvent;
        await store.write({ session: completed, events: [ended] });
        expect(await store.events(d.session.id, 0)).toStrictEqual([...d.raised, ended]);
        expect(await store.get(d.session.id)).toStrictEqual(completed);
        expect((await rejection(store.resumeInterrupted(d.session.id, new Date()))) as StoreError).toMatchObject({
          code: 'conflict',
        });
      });
    });

    describe('atomicity', () => {
      it('writes nothing of a step that fails (events colliding), and stays usable', async () => {
        const d = new FakeDebate({ owner: owner('atomic') });
        await store.write(d.start().step());
        d.startRound(1);
        d.answer(1, 1);
        await store.write(d.step({ rounds: [1] }));
        const before = structuredClone(d.session);
        const eventsBefore = [...d.raised];

        // A step with new answers, a consensus and a verdict whose events reuse a stored seq.
        d.answer(1, 2);
        d.consensus();
        d.verdict();
        d.end('completed');
        const bad = d.step({ rounds: [1], consensus: true, verdict: true });
        const colliding = { ...bad, events: [{ ...bad.events[0]!, seq: 2 }, ...bad.events.slice(1)] };
        const error = await rejection(store.write(colliding));
        expect(error).toBeInstanceOf(StoreError);
        expect((error as StoreError).code).toBe('conflict');
        expect(await store.get(d.session.id)).toStrictEqual(before);
        expect(await store.events(d.session.id, 0)).toStrictEqual(eventsBefore);

        // Two events with one seq inside the step collide too.
        const twice = { ...bad, events: [...bad.events, bad.events.at(-1)!] };
        expect(await rejection(store.write(twice))).toMatchObject({ code: 'conflict' });
        expect(await store.get(d.session.id)).toStrictEqual(before);

        // The same step with its own seqs is written whole.
        await store.write(bad);
        expect(await store.get(d.session.id)).toStrictEqual(d.session);
        expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);
      });

      it('fails only the bad step among steps written at the same time', async () => {
        const who = owner('batch');
        const debates = Array.from({ length: 12 }, () => new FakeDebate({ owner: who }));
        const started = debates.map((d) => d.start().step());
        await Promise.all(started.map((step) => store.write(step)));
        const steps = debates.map((d) => {
          d.startRound(1);
          d.answer(1, 1);
          return d.step({ rounds: [1] });
        });
        const badIndex = 5;
        const bad = steps[badIndex]!;
        steps[badIndex] = { ...bad, events: [{ ...bad.events[0]!, seq: 1 }, ...bad.events.slice(1)] };
        const results = await Promise.allSettled(steps.map((s) => store.write(s)));
        expect(results.map((r) => r.status)).toStrictEqual(debates.map((_, i) => (i === badIndex ? 'rejected' : 'fulfilled')));
        for (const [i, d] of debates.entries()) {
          const stored = await store.get(d.session.id);
          if (i === badIndex) expect(stored).toStrictEqual(started[i]!.session);
          else expect(stored).toStrictEqual(d.session);
        }
      });
    });

    describe('what the history, the estimate and the track record read', () => {
      it('lists without the sessions tagged eval unless asked for a tag, each summary with its tags', async () => {
        const who = owner('tags');
        const at = (i: number) => new Date(Date.UTC(2025, 8, 1, 0, 0, i)).toISOString();
        const plain = new FakeDebate({ owner: who, createdAt: at(1) }).start();
        const evaluated = new FakeDebate({ owner: who, createdAt: at(2) }).start();
        evaluated.session.tags = ['eval', `eval:${run}`];
        const other = new FakeDebate({ owner: who, createdAt: at(3) }).start();
        other.session.tags = ['weekly'];
        for (const d of [plain, evaluated, other]) await store.write(d.step());
        const ids = (page: ListPage) => page.items.map((x) => x.id);
        expect(ids(await store.list({ owner: who, limit: 10 }))).toStrictEqual([other.session.id, plain.session.id]);
        expect(ids(await store.list({ owner: who, limit: 10, tag: 'eval' }))).toStrictEqual([evaluated.session.id]);
        expect(ids(await store.list({ owner: who, limit: 10, tag: `eval:${run}` }))).toStrictEqual([evaluated.session.id]);
        expect(ids(await store.list({ owner: who, limit: 10, tag: 'weekly' }))).toStrictEqual([other.session.id]);
        expect((await store.list({ owner: who, limit: 10, tag: 'eval' })).items[0]).toStrictEqual(summaryOf(evaluated.session));
        expect(summaryOf(evaluated.session).tags).toStrictEqual(['eval', `eval:${run}`]);
        expect((await store.get(evaluated.session.id))!.tags).toStrictEqual(['eval', `eval:${run}`]);
      });

      it('gives the output tokens of the latest answers per model, final rounds apart and failed answers left out', async () => {
        const model = `stats-${run}`;
        // Newer than every other session of the suite, so among the latest the statistics read.
        const d = new FakeDebate({ owner: owner('stats'), roundsRequested: 2, createdAt: '2099-01-01T00:00:00.000Z' }).start();
        d.startRound(1);
        for (const [slot, text] of [
          [1, 'x'.repeat(60)],
          [2, 'x'.repeat(160)],
        ] as const)
          d.answer(1, slot, text).model = model;
        d.fail(1, 3).model = model;
        d.endRound(1);
        d.startRound(2);
        d.answer(2, 1, 'x'.repeat(460)).model = model;
        await store.write(d.step({ rounds: [1, 2] }));
        const stats = await store.answerStats();
        // Output tokens are 40 + the text's length: 100 and 200; the final round's 500.
        expect(stats.get(`anthropic/${model}/answer`)).toStrictEqual({ answers: 1, meanOutputTokens: 100, sdOutputTokens: 0 });
        expect(stats.get(`openai/${model}/answer`)).toStrictEqual({ answers: 1, meanOutputTokens: 200, sdOutputTokens: 0 });
        expect(stats.get(`anthropic/${model}/final`)).toStrictEqual({ answers: 1, meanOutputTokens: 500, sdOutputTokens: 0 });
        expect(stats.has(`deepseek/${model}/answer`)).toBe(false);
      });

      it('gives the integrity reports of one owner’s deep sessions (everyone’s without one), oldest first', async () => {
        const who = owner('reports');
        const report = (summary: string) => ({
          vote: { answered: 0, stated: 0, tie: false, share: 0, positions: [] },
          verdict: { source: 'none' as const },
          summary,
          slots: [],
          flags: [],
        });
        const made = [2, 1, 3].map((i) => {
          const d = new FakeDebate({ owner: who, createdAt: new Date(Date.UTC(2025, 9, 1, 0, 0, i)).toISOString() }).start();
          d.session.integrity = report(`report ${i}`);
          return d;
        });
        const without = new FakeDebate({ owner: who, createdAt: new Date(Date.UTC(2025, 9, 2)).toISOString() }).start();
        for (const d of [...made, without]) await store.write(d.step());
        expect((await store.integrityReports(who)).map((r) => r.summary)).toStrictEqual(['report 1', 'report 2', 'report 3']);
        const everyone = (await store.integrityReports()).map((r) => r.summary);
        expect(everyone).toEqual(expect.arrayContaining(['report 1', 'report 2', 'report 3']));
        expect(await store.integrityReports(owner('nobody'))).toStrictEqual([]);
      });
    });

    describe('concurrency', () => {
      it('lands every step of 50 debates written in parallel (each debate in order, as the recorder writes)', async () => {
        const who = owner('many');
        const debates = Array.from(
          { length: 50 },
          (_, i) => new FakeDebate({ owner: who, createdAt: new Date(Date.UTC(2025, 6, 1, 0, 0, i)).toISOString() }),
        );
        const perDebate = debates.map((d) => debateSteps(d, 3, 6));
        expect(perDebate[0]!.length).toBe(25);
        await Promise.all(
          perDebate.map(async (steps) => {
            for (const step of steps) await store.write(step);
          }),
        );
        for (const d of debates) {
          expect(await store.get(d.session.id)).toStrictEqual(d.session);
          expect(await store.events(d.session.id, 0)).toStrictEqual(d.raised);
        }
        const listed = await store.list({ owner: who, limit: 100 });
        expect(listed.items.map((s) => s.id)).toStrictEqual(debates.map((d) => d.session.id).reverse());
      });
    });
  });
}
