/**
 * The wiki as tools a model may call during a critique round (`search_wiki`, `read_page`), through the AI SDK's
 * tool calling: the slot's model wrapped so that a reply that calls tools gets their results and is asked again,
 * at most `maxSteps` times, its text and usage streamed on as one answer. A call the builders or the wiki refuse
 * comes back to the model as the tool's error, with MediaWiki's own code, so it can correct the request.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';

export type ToolOutcome = { ok: true; value: unknown } | { ok: false; code: string; message: string };

export interface WikiTools {
  run(name: string, input: unknown): Promise<ToolOutcome>;
}

export const WIKI_TOOLS: LanguageModelV3FunctionTool[] = [
  {
    type: 'function',
    name: 'search_wiki',
    description: "Search the debate's wiki; returns the titles of the best matching pages.",
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer', minimum: 1, description: "How many titles (at most the source's pages per debate)." },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    type: 'function',
    name: 'read_page',
    description: 'Read a wiki page by its exact title; returns its plain text and the number to cite it by.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false },
  },
];

const sum = (a: number | undefined, b: number | undefined) =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);

function addUsage(a: LanguageModelV3Usage | undefined, b: LanguageModelV3Usage | undefined): LanguageModelV3Usage | undefined {
  if (!a || !b) return a ?? b;
  return {
    ...b,
    inputTokens: {
      total: sum(a.inputTokens.total, b.inputTokens.total),
      noCache: sum(a.inputTokens.noCache, b.inputTokens.noCache),
      cacheRead: sum(a.inputTokens.cacheRead, b.inputTokens.cacheRead),
      cacheWrite: sum(a.inputTokens.cacheWrite, b.inputTokens.cacheWrite),
    },
    outputTokens: {
      total: sum(a.outputTokens.total, b.outputTokens.total),
      text: sum(a.outputTokens.text, b.outputTokens.text),
      reasoning: sum(a.outputTokens.reasoning, b.outputTokens.reasoning),
    },
  };
}

function parsed(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** `inner` with the wiki's tools offered; tool calls run and answered until the model writes its answer. */
export function withWikiTools(inner: LanguageModelV3, tools: WikiTools, maxSteps: number): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    doGenerate: (options) => inner.doGenerate(options),
    async doStream(options: LanguageModelV3CallOptions) {
      const offer = (step: number) =>
        step < maxSteps
          ? { tools: WIKI_TOOLS, toolChoice: { type: 'auto' as const } }
          : { tools: [], toolChoice: { type: 'none' as const } };
      const first = await inner.doStream({ ...options, ...offer(0) });
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async start(controller) {
          let current = first;
          let prompt: LanguageModelV3Prompt = options.prompt;
          let usage: LanguageModelV3Usage | undefined;
          try {
            for (let step = 0; ; step++) {
              const reader = current.stream.getReader();
              const calls: Extract<LanguageModelV3StreamPart, { type: 'tool-call' }>[] = [];
              let finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }> | undefined;
              for (;;) {
                const { done, value } = await reader.read();
                if (done) break;
                if (value.type === 'tool-call') calls.push(value);
                else if (value.type === 'finish') finish = value;
                else if (value.type.startsWith('tool-input') || (step > 0 && value.type === 'stream-start')) continue;
                else controller.enqueue(value);
              }
              usage = addUsage(usage, finish?.usage);
              if (!finish || calls.length === 0 || step >= maxSteps) {
                if (finish) controller.enqueue({ ...finish, usage: usage ?? finish.usage });
                controller.close();
                return;
              }
              const results = await Promise.all(
                calls.map(async (call) => {
                  const outcome = await tools.run(call.toolName, parsed(call.input));
                  return {
                    type: 'tool-result' as const,
                    toolCallId: call.toolCallId,
                    toolName: call.toolName,
                    output: outcome.ok
                      ? { type: 'json' as const, value: outcome.value as never }
                      : { type: 'error-text' as const, value: `${outcome.code}: ${outcome.message}` },
                  };
                }),
              );
              prompt = [
                ...prompt,
                {
                  role: 'assistant',
                  content: calls.map((c) => ({
                    type: 'tool-call' as const,
                    toolCallId: c.toolCallId,
                    toolName: c.toolName,
                    input: parsed(c.input),
                  })),
                },
                { role: 'tool', content: results },
              ];
              current = await inner.doStream({ ...options, prompt, ...offer(step + 1) });
            }
          } catch (error) {
            controller.enqueue({ type: 'error', error });
            controller.close();
          }
        },
      });
      return { ...first, stream };
    },
  };
}
