import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { fillable, learnTemplate, promptTexts, type SdkModelSource, templatePieces } from './request-template.js';
import { Transport } from './transport.js';

const PROMPT: LanguageModelV3Prompt = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: [{ type: 'text', text: 'Which city?' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Zürich.' }] },
  { role: 'user', content: [{ type: 'text', text: 'Why?' }] },
];

/**
 * A stand-in provider SDK: its model builds the body with `build` from the prompt's texts, sends it
 * through the `fetch` it was made with as the real SDKs send theirs, and starts its stream with `warnings`.
 */
function sdk(build: (texts: string[], options: LanguageModelV3CallOptions) => unknown, warnings = []): SdkModelSource {
  return { transport: new Transport(), withFetch: async (fetch) => standIn(fetch, build, warnings) };
}

function standIn(
  fetch: typeof globalThis.fetch,
  build: (texts: string[], options: LanguageModelV3CallOptions) => unknown,
  warnings: never[],
): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'test.chat',
    modelId: 'm',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream(options) {
      const response = await fetch('https://api.test/v1/chat', {
        method: 'POST',
        headers: { Authorization: 'Bearer k', 'Content-Type': 'application/json' },
        body: JSON.stringify(build(promptTexts(options.prompt), options)),
        signal: options.abortSignal ?? null,
      });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings });
          controller.close();
        },
      });
      return { stream };
    },
  };
}

describe('promptTexts and fillable', () => {
  it('lists the system prompt, then each turn, in order', () => {
    expect(promptTexts(PROMPT)).toEqual(['Be brief.', 'Which city?', 'Zürich.', 'Why?']);
  });

  it('leaves empty and blank texts to the SDK', () => {
    expect(fillable(['a', ' b '])).toBe(true);
    expect(fillable(['a', ''])).toBe(false);
    expect(fillable([' \n\t'])).toBe(false);
  });
});

describe('learnTemplate', () => {
  it('captures the request instead of sending it, and fills any texts into the same body', async () => {
    const build = (texts: string[], o: LanguageModelV3CallOptions) => ({
      model: 'm',
      max_tokens: o.maxOutputTokens,
      messages: texts.map((content) => ({ content })),
      stream: true,
    });
    const template = await learnTemplate(sdk(build, [{ type: 'other', message: 'w' }] as never), { maxOutputTokens: 9 }, PROMPT);
    expect(template).toMatchObject({
      url: 'https://api.test/v1/chat',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      warnings: [{ type: 'other', message: 'w' }],
    });
    const texts = ['"quoted" \\ \u0000 🚀 \ud83d', '\u2028 line', ' x ', 'y\r\n'];
    expect(template!.body(texts)).toBe(JSON.stringify(build(texts, { maxOutputTokens: 9 } as LanguageModelV3CallOptions)));
  });

  it('puts each text where the SDK put it, in whatever order the body has them', async () => {
    // Gemini's order: the conversation first, the system instruction after it.
    const build = (texts: string[]) => ({ contents: texts.slice(1), systemInstruction: `Note: ${texts[0]}!` });
    const template = await learnTemplate(sdk(build), {}, PROMPT);
    const texts = ['S', 'a', 'b', 'c'];
    expect(template!.body(texts)).toBe(JSON.stringify(build(texts)));
  });

  it('has no template when the SDK does not copy every text as it is', async () => {
    const cases: ((texts: string[]) => unknown)[] = [
      (texts) => ({ messages: texts.map((t) => t.trim()) }),
      (texts) => ({ messages: texts.slice(1) }),
      (texts) => ({ messages: [...texts, texts[0]] }),
      (texts) => ({ messages: texts, length: texts[0]!.length }),
      (texts) => ({ messages: texts, tag: texts[0]!.slice(-12) }),
      (texts) => ({ messages: texts, tools: [{ name: 'json' }], tool_choice: { type: 'tool' } }),
    ];
    for (const build of cases) expect(await learnTemplate(sdk(build), {}, PROMPT)).toBeUndefined();
  });

  it("rejects with the SDK's own error", async () => {
    const model = sdk(() => {
      throw new Error('unsupported option');
    });
    await expect(learnTemplate(model, {}, PROMPT)).rejects.toThrow('unsupported option');
  });
});

describe('templatePieces', () => {
  it('needs each placeholder exactly once and the nonce nowhere else', () => {
    expect(templatePieces('{"a":"x"}', 'n-1', 1)).toBeUndefined();
    expect(templatePieces('{"a":"x","n-1":1}', 'n-1', 0)).toBeUndefined();
    expect(templatePieces('{"a":"x"}', 'n-1', 0)).toEqual({ literal: ['{"a":"x"}'], order: [] });
  });
});
