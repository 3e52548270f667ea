/**
 * `GET /v1/models` and `POST /v1/chat/completions`: an OpenAI chat request becomes a run (`runs/`) like any other —
 * a new session, or a follow-up to the one its earlier turns came from — stored in the caller's history. Streamed,
 * the rounds go out as `reasoning_content` as they happen and the verdict as `content` once stored; a client that
 * goes away cancels the run.
 */
import type { Context } from 'hono';
import type { DebateEvent, Session } from '../../../../sdk/src/generated/types.gen.js';
import type { Handlers } from '../../generated/routes.js';
import { RunRefused } from '../../runs/refused.js';
import type { Caller, Runs } from '../../runs/runs.js';
import type { StartedRun } from '../../runs/start.js';
import type { AppEnv } from '../deps.js';
import { eventStream } from '../event-stream.js';
import { scopeOf } from '../owner.js';
import { callerOf, REFUSAL_STATUS } from '../run-replies.js';
import { chatCompletion, chunk, completionId, lastChunks, reasoningOf } from './completion.js';
import { conversationTag, parentOf } from './conversation.js';
import { OpenAIRequestError, openAIError } from './errors.js';
import { type ModelPlan, modelList, planOf } from './models.js';
import { type ChatRequest, readChatRequest } from './request.js';

export interface OpenAIHandlersOptions {
  runs: Runs;
  ownerOf: (c: Context) => string;
  publicOrigin?: URL | undefined;
}

/** The question as every model reads it: the caller's system message goes with it to each. */
const questionWith = ({ question, system }: ChatRequest) =>
  system ? `${question}\n\n(Instructions for every answer, from the caller's system message: ${system})` : question;

export function openAIHandlers({
  runs,
  ownerOf,
  publicOrigin,
}: OpenAIHandlersOptions): Pick<Handlers<AppEnv>, 'listOpenAiModels' | 'createChatCompletion'> {
  const caller = callerOf(ownerOf);

  /** The caller's session the earlier turns came from, if any. */
  const parentId = async (c: Context, request: ChatRequest): Promise<string | undefined> => {
    const parent = parentOf(request.history);
    if (!parent) return undefined;
    if ('sessionId' in parent) return parent.sessionId;
    const page = await runs.sessions.list(ownerOf(c), { tag: parent.tag, limit: 1 });
    return page.items[0]?.id;
  };

  const start = async (c: Context, request: ChatRequest, plan: ModelPlan, extra: Partial<Caller>): Promise<StartedRun> => {
    const who = { ...caller(c, false), ...extra, client: [c.req.raw.signal, ...(extra.client ?? [])] };
    const question = questionWith(request);
    const tags = [conversationTag([...request.history, { role: 'user', content: request.question }])];
    const budget = request.maxTokens !== undefined ? { budget: { maxTokens: request.maxTokens } } : {};
    const maxOutputTokens = request.maxTokens !== undefined ? { maxOutputTokens: Math.min(request.maxTokens, 32000) } : {};
    const parent = await parentId(c, request);
    if (parent) {
      return runs.followUp(
        parent,
        {
          question,
          mode: plan.mode,
          tags,
          ...(plan.mode === 'deep' && { ...budget, ...(plan.rounds !== undefined && { rounds: plan.rounds }) }),
          ...(plan.mode === 'single' && { provider: plan.provider }),
        },
        { ...who, scope: scopeOf(c) },
      );
    }
    if (plan.mode === 'deep') return runs.deep({ question, tags, ...budget, ...(plan.rounds && { rounds: plan.rounds }) }, who);
    if (plan.mode === 'parallel') return runs.parallel({ question, tags, ...maxOutputTokens }, who);
    return runs.ask(plan.provider, { question, tags, ...maxOutputTokens }, who);
  };

  return {
    listOpenAiModels: (c) => c.json(modelList(runs.engine.slots), 200),

    createChatCompletion: async (c) => {
      const origin = publicOrigin?.origin ?? new URL(c.req.url).origin;
      const created = Math.floor(Date.now() / 1000);
      let request: ChatRequest;
      try {
        request = readChatRequest(c.req.valid('json'));
      } catch (error) {
        if (error instanceof OpenAIRequestError) return openAIError(c, error.status, error) as never;
        throw error;
      }
      const plan = planOf(request.model, runs.engine.slots);
      if (!plan) {
        return openAIError(c, 404, {
          message: `The model \`${request.model}\` does not exist or you do not have access to it; GET /v1/models lists yours.`,
          code: 'model_not_found',
          param: 'model',
        }) as never;
      }
      const cancel = new AbortController();
      // The run's first events come before the stream exists: they wait for it.
      const early: DebateEvent[] = [];
      let send = (event: DebateEvent): void => void early.push(event);
      let run: StartedRun;
      try {
        run = await start(c, request, plan, { client: [cancel.signal], onEvent: (event) => send(event) });
      } catch (error) {
        if (!(error instanceof RunRefused)) throw error;
        return openAIError(c, REFUSAL_STATUS[error.code], { message: error.message, code: error.code }) as never;
      }
      if (!request.stream) {
        const session = await run.done;
        return c.json(chatCompletion(session, request.model, origin, created), 200) as never;
      }
      const model = request.model;
      return eventStream(c, async (out) => {
        out.onAbort(() => cancel.abort());
        const data = (value: unknown) => out.write(`data: ${JSON.stringify(value)}\n\n`);
        const seen = new Set<string>();
        let id: string | undefined;
        send = (event) => {
          if (!id) {
            id = completionId(event.sessionId);
            data(chunk(id, model, created, { role: 'assistant', content: '' }));
          }
          const reasoning = reasoningOf(event, seen);
          if (reasoning) data(chunk(id, model, created, { reasoning_content: reasoning }));
        };
        for (const event of early.splice(0)) send(event);
        let session: Session;
        try {
          session = await run.done;
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          data({ error: { message, type: 'server_error', code: 'store_unavailable', param: null } });
          out.write('data: [DONE]\n\n');
          return;
        }
        if (!id) data(chunk(completionId(session.id), model, created, { role: 'assistant', content: '' }));
        for (const last of lastChunks(session, model, origin, created, request.includeUsage)) data(last);
        out.write('data: [DONE]\n\n');
      }) as never;
    },
  };
}
