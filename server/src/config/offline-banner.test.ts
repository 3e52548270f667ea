import { expect, it } from 'vitest';
import { offlineBanner } from './offline-banner.js';
import { slotsFromEnv } from './slots.js';

it('names every offline slot with its key variable, and gives an OpenAI-compatible example', () => {
  const banner = offlineBanner(slotsFromEnv({}));
  expect(banner).toContain('All slots are OFFLINE');
  for (const key of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'DEEPSEEK_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'XAI_API_KEY']) {
    expect(banner).toContain(`${key}=...`);
  }
  expect(banner).toContain('CONSILIUM_SLOT1_BASE_URL=http://127.0.0.1:11434/v1');
});

it('lists only the slots still offline, and nothing when all are live', () => {
  const banner = offlineBanner(slotsFromEnv({ ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k', DEEPSEEK_API_KEY: 'k' }));
  expect(banner).toContain('Slots 4, 5 are OFFLINE');
  expect(banner).not.toContain('ANTHROPIC_API_KEY');
  expect(banner).toContain('CONSILIUM_SLOT4_PROVIDER=ollama-qwen');
  const all = {
    ANTHROPIC_API_KEY: 'k',
    OPENAI_API_KEY: 'k',
    DEEPSEEK_API_KEY: 'k',
    GOOGLE_GENERATIVE_AI_API_KEY: 'k',
    XAI_API_KEY: 'k',
  };
  expect(offlineBanner(slotsFromEnv(all))).toBe('');
});
