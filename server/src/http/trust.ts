/**
 * What tells a user whether to trust a debate before and after it: the cost estimate of a run (nothing asked,
 * nothing stored) and each slot's track record over their deep sessions.
 */
import type { Context } from 'hono';
import type { EstimateRequest } from '../../../sdk/src/generated/types.gen.js';
import { strategyProblems } from '../debate/adaptive.js';
import { type EstimatePlan, type EstimateSlot, estimateRun, estimateSlot } from '../debate/estimate.js';
import { panelChoice, panelProblems } from '../debate/panel.js';
import { trackRecord } from '../debate/track-record.js';
import type { Handlers } from '../generated/routes.js';
import type { AppEnv, DebateDeps } from './deps.js';
import { problem } from './problem.js';

/** The request fields each mode takes (`mode` and `question` are everyone's). */
const MODES_OF_FIELD: Record<string, readonly EstimateRequest['mode'][]> = {
  provider: ['single'],
  maxOutputTokens: ['single', 'parallel'],
  slots: ['parallel', 'deep'],
  rounds: ['deep'],
  synthesizer: ['deep'],
  ranking: ['deep'],
  models: ['deep'],
  strategy: ['deep'],
  earlyStop: ['deep'],
  budget: ['deep'],
};

export function trustHandlers({
  engine,
  sessions,
  ownerOf,
}: DebateDeps): Pick<Handlers<AppEnv>, 'estimateRun' | 'getTrackRecord'> {
  const refused = (c: Context, errors: { path: string; message: string }[]) =>
    problem(c, 400, 'validation_failed', { detail: errors.map((e) => e.message).join(' '), errors });
  return {
    estimateRun: async (c) => {
      const body = c.req.valid('json');
      const mode = body.mode ?? 'deep';
      const misplaced = Object.entries(MODES_OF_FIELD)
        .filter(([field, modes]) => body[field as keyof typeof body] !== undefined && !modes.includes(mode))
        .map(([field, modes]) => ({
          path: `body.${field}`,
          message: `\`${field}\` is for a ${modes.join(' or ')} run; this one is ${mode}.`,
        }));
      if (misplaced.length > 0) return refused(c, misplaced);
      const configured = engine.settings.panel;
      let slots: EstimateSlot[];
      let synthesizer: EstimateSlot | undefined;
      if (mode === 'single') {
        const provider = body.provider ?? configured[0]?.config.provider;
        const slot = provider === undefined ? undefined : engine.slotByProvider(provider);
        if (!slot) {
          const known = engine.slots.map((s) => s.provider).join(', ');
          return problem(c, 404, 'unknown_provider', {
            detail: `No slot is configured for "${provider}"; configured: ${known}.`,
          });
        }
        slots = [estimateSlot(slot)];
      } else if (mode === 'parallel') {
        const wanted = body.slots ? new Set<number>(body.slots) : undefined;
        slots = configured.filter((p) => !wanted || wanted.has(p.config.slot)).map(estimateSlot);
      } else {
        const errors = [...panelProblems(configured, body), ...strategyProblems(body)];
        if (errors.length > 0) return refused(c, errors);
        const choice = panelChoice(configured, body);
        // As the engine resolves it: the chosen model on the slot's own provider and settings.
        const resolve = (n: number) => {
          const base = configured.find((p) => p.config.slot === n)!;
          const model = choice.models?.find((m) => m.slot === n)?.model;
          return { ...estimateSlot(base), ...(model !== undefined && !base.model.offline && { model }) };
        };
        slots = choice.slots.map(resolve);
        synthesizer = resolve(choice.synthesizer ?? choice.slots[0]!);
      }
      const stats = await sessions.store.answerStats();
      const plan: EstimatePlan = {
        mode,
        question: body.question,
        slots,
        ...(synthesizer && { synthesizer }),
        rounds: body.rounds ?? 3,
        ranking: body.ranking === true,
        strategy: body.strategy ?? 'debate',
        earlyStop: body.earlyStop === true,
        ...(body.maxOutputTokens !== undefined && { maxOutputTokens: body.maxOutputTokens }),
        ...(body.budget && { budget: body.budget }),
        prices: engine.settings.prices,
        history: (provider, model, kind) => stats.get(`${provider}/${model}/${kind}`),
      };
      return c.json(estimateRun(plan), 200);
    },

    getTrackRecord: async (c) => {
      const { owner } = c.req.valid('query');
      if (owner === 'all' && c.get('user').role !== 'admin') {
        return problem(c, 403, 'forbidden', { detail: 'Only admins may read every user’s track record (`owner=all`).' });
      }
      const reports = await sessions.store.integrityReports(owner === 'all' ? undefined : ownerOf(c));
      return c.json(trackRecord(reports), 200);
    },
  };
}
