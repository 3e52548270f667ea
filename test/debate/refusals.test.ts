/**
 * A refusal is its own outcome in a debate: the refusing slot's answers carry the error `refused` (its words
 * kept), the slot is missing from every round, and it is counted toward no quorum and no consensus. Over the
 * real provider layer: two slots of a scripted OpenAI-compatible panel refuse as OpenAI does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Consilium } from '../../sdk/src/index.js';
import { type ScriptedModels, scriptedPanel, startScriptedModels } from '../support/scripted-models.js';
import { type RunningServer, startServer } from '../support/server.js';

let scripted: ScriptedModels;
let server: RunningServer;

beforeAll(async () => {
  scripted = await startScriptedModels({ seed: 5 });
  server = await startServer(scriptedPanel(scripted.baseUrl, ['accurate-1', 'accurate-1', 'accurate-1', 'refuser', 'refuser']));
});
afterAll(async () => {
  await server?.close();
  await scripted?.close();
});

describe('refusals in a debate', () => {
  it('are refused answers, missing from each round, supporting nothing; the three who answered carry the debate', async () => {
    const client = new Consilium({ baseUrl: server.baseUrl, token: server.token });
    const session = await client.debates.run('What is 20 + 22?', { rounds: 2 });
    // Partial, as any debate a slot was missing from, and still with its verdict.
    expect(session.status).toBe('partial');
    expect(session.missingSlots).toEqual([4, 5]);
    expect(session.verdict).toBeDefined();
    for (const round of session.rounds) {
      expect(round.missingSlots).toEqual([4, 5]);
      for (const a of round.answers.filter((x) => x.slot >= 4)) {
        expect(a.error).toMatchObject({ code: 'refused', retryable: false, attempts: 1 });
        expect(a.error!.message).toContain("I can't help with that");
        expect(a.text).toBe('');
      }
      for (const a of round.answers.filter((x) => x.slot <= 3)) expect(a.error).toBeUndefined();
    }
    const supporters = (session.consensus?.agreements ?? []).flatMap((s) => s.slots);
    expect(supporters.length).toBeGreaterThan(0);
    expect(supporters.every((slot) => slot <= 3)).toBe(true);
    // Asked once per round each: a refusal is not retried.
    expect(scripted.calls.filter((c) => c.model === 'refuser' && c.kind !== 'verdict')).toHaveLength(4);
  });
});
