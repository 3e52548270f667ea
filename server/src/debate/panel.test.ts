import { describe, expect, it } from 'vitest';
import { slotsFromEnv } from '../config/slots.js';
import type { SlotModel } from '../providers/models.js';
import { PanelResolver, panelChoice, panelProblems } from './panel.js';

const configured = slotsFromEnv({ CONSILIUM_SLOT2_MODELS: 'gpt-4.1-mini, o4-mini' }).map((config) => ({
  config,
  model: { slot: config.slot, provider: config.provider, model: config.model, offline: true } as SlotModel,
}));

describe('panelProblems', () => {
  it('accepts the defaults, two distinct slots, any synthesizer, and a model from the list', () => {
    expect(panelProblems(configured, {})).toEqual([]);
    expect(panelProblems(configured, { slots: [3, 1], synthesizer: 5, models: [{ slot: 2, model: 'o4-mini' }] })).toEqual([]);
    expect(panelProblems(configured, { models: [{ slot: 2, model: 'gpt-4.1' }] })).toEqual([]);
  });

  it('refuses one distinct slot, a model off the list or given twice, naming the field', () => {
    expect(panelProblems(configured, { slots: [4, 4] })).toEqual([
      { path: 'body.slots', message: 'A debate needs at least two distinct slots.' },
    ]);
    expect(
      panelProblems(configured, {
        models: [
          { slot: 3, model: 'deepseek-reasoner' },
          { slot: 2, model: 'o4-mini' },
          { slot: 2, model: 'gpt-4.1-mini' },
        ],
      }),
    ).toEqual([
      { path: 'body.models.0.model', message: 'Slot 3 may use "deepseek-chat"; "deepseek-reasoner" is not on its list.' },
      { path: 'body.models.2.slot', message: 'Slot 2 is given a model twice.' },
    ]);
  });
});

describe('panelChoice and PanelResolver', () => {
  it('fills in the defaults and keeps the slots distinct, in order; a slot kept on its own model is not recorded', () => {
    expect(panelChoice(configured, {})).toEqual({ slots: [1, 2, 3, 4, 5], anonymous: true, ranking: false });
    expect(
      panelChoice(configured, {
        slots: [5, 2, 5],
        synthesizer: 1,
        anonymous: false,
        ranking: true,
        models: [
          { slot: 2, model: 'o4-mini' },
          { slot: 5, model: 'grok-3-mini' },
        ],
      }),
    ).toEqual({ slots: [2, 5], synthesizer: 1, anonymous: false, ranking: true, models: [{ slot: 2, model: 'o4-mini' }] });
  });

  it('makes a slot on another model once, and keeps the configured one otherwise', () => {
    const made: string[] = [];
    const resolver = new PanelResolver(configured, (config) => {
      made.push(config.model);
      return { slot: config.slot, provider: config.provider, model: config.model, offline: true } as SlotModel;
    });
    const choice = panelChoice(configured, { slots: [1, 2], models: [{ slot: 2, model: 'o4-mini' }] });
    const [one, two] = resolver.panel(choice);
    expect(one).toBe(configured[0]);
    expect(two!.model.model).toBe('o4-mini');
    expect(resolver.panel(choice)[1]).toBe(two);
    expect(made).toEqual(['o4-mini']);
    // Another request choosing another model for the same slot gets its own, and each is still made once.
    const other = panelChoice(configured, { slots: [1, 2], models: [{ slot: 2, model: 'gpt-4.1-mini' }] });
    expect(resolver.panel(other)[1]!.model.model).toBe('gpt-4.1-mini');
    expect(resolver.panel(other)[1]!.config.model).toBe('gpt-4.1-mini');
    expect(resolver.panel(choice)[1]).toBe(two);
    expect(made).toEqual(['o4-mini', 'gpt-4.1-mini']);
  });
});
