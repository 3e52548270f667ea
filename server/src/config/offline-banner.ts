import type { SlotConfig } from './slots.js';

/**
 * The start-up banner's lines about offline slots: which slots answer with the built-in stand-in
 * (not a model), and how to make each live — its key variable, or an OpenAI-compatible server such
 * as Ollama. Empty when every slot is live.
 */
export function offlineBanner(slots: readonly SlotConfig[]): string {
  const offline = slots.filter((s) => !s.live);
  if (offline.length === 0) return '';
  const which =
    offline.length === slots.length
      ? 'All slots are'
      : `Slot${offline.length > 1 ? 's' : ''} ${offline.map((s) => s.slot).join(', ')} ${offline.length > 1 ? 'are' : 'is'}`;
  const example = offline[0]!.slot;
  return [
    `  ${which} OFFLINE: a local stand-in answers there, showing how the debate runs, not what a model thinks.`,
    '  Make a slot live by setting its key (in the environment or .env):',
    ...offline.map((s) => `    slot ${s.slot} (${s.provider}): ${s.apiKeyEnv}=...`),
    `  or point it at an OpenAI-compatible server, e.g. Ollama:`,
    `    CONSILIUM_SLOT${example}_PROVIDER=ollama-qwen CONSILIUM_SLOT${example}_MODEL=qwen2.5:7b CONSILIUM_SLOT${example}_BASE_URL=http://127.0.0.1:11434/v1`,
    '',
  ].join('\n');
}
