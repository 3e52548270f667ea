/** The history's tools: `get_session` (one session, whole) and `list_sessions` (a page, with the history's search). */
import { z } from 'zod';
import { BadCursorError } from '../sessions/sessions.js';
import type { Register } from './context.js';
import { getSessionInput, listSessionsInput } from './inputs.js';
import { outcomeOf, outcomeOutput, outcomeText } from './outcome.js';
import { structured, toolError } from './results.js';

const summary = z.object({
  id: z.string(),
  question: z.string(),
  mode: z.string(),
  status: z.string(),
  createdAt: z.string(),
  verdictPreview: z.string().optional(),
  link: z.string(),
});

export const registerSessionTools: Register = (server, ctx) => {
  const { sessions } = ctx.runs;
  const { owner, scope } = ctx.caller;

  server.registerTool(
    'get_session',
    {
      title: 'Read a session',
      description:
        'One stored session by id (yours, or shared with you): its question, verdict, actions, dissent, last answers and cost. The whole session as Markdown is the resource consilium://sessions/{id}.',
      inputSchema: getSessionInput,
      outputSchema: outcomeOutput.extend({ question: z.string(), createdAt: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ sessionId }) => {
      const session = await sessions.read(sessionId, scope, owner);
      if (!session) return toolError('not_found', `No session "${sessionId}".`, [{ field: 'sessionId', message: 'not found' }]);
      const outcome = { ...outcomeOf(session, ctx.link(session.id)), question: session.question, createdAt: session.createdAt };
      return structured(outcome, `${session.question}\n\n${outcomeText(outcome)}`);
    },
  );

  server.registerTool(
    'list_sessions',
    {
      title: 'List sessions',
      description:
        'Your sessions, newest first, a page at a time (`nextCursor` for the next). `q`: words in the question; `text`: full-text search of questions, answers and verdicts; `shared`: those shared with you.',
      inputSchema: listSessionsInput,
      outputSchema: z.object({ items: z.array(summary), nextCursor: z.string().optional() }),
      annotations: { readOnlyHint: true },
    },
    async (query) => {
      try {
        const page = await sessions.list(owner, query);
        const items = page.items.map((s) => ({
          id: s.id,
          question: s.question,
          mode: s.mode,
          status: s.status,
          createdAt: s.createdAt,
          ...(s.verdictPreview !== undefined && { verdictPreview: s.verdictPreview }),
          link: ctx.link(s.id),
        }));
        const text = items.map((s) => `${s.id} ${s.createdAt} ${s.mode} ${s.status}: ${s.question}`).join('\n') || 'No sessions.';
        return structured({ items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) }, text);
      } catch (error) {
        if (!(error instanceof BadCursorError)) throw error;
        return toolError('validation_failed', error.message, [{ field: 'cursor', message: error.message }]);
      }
    },
  );
};
