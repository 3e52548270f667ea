/**
 * The resources: each session as Markdown (`consilium://sessions/{id}`, the export the web UI downloads, its thread
 * up to it included) and the configured sources (`consilium://sources`: the slots and the wiki sources).
 */
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { threadMarkdown } from '../sessions/markdown.js';
import { ALL_OWNERS } from '../sessions/sessions.js';
import type { Register } from './context.js';

export const SESSION_URI = 'consilium://sessions/{id}';
export const SOURCES_URI = 'consilium://sources';
/** How many of the caller's sessions `resources/list` names (the newest). */
const LISTED = 50;

export const registerResources: Register = (server, ctx) => {
  const { sessions, engine, wikis } = ctx.runs;
  const { owner, scope } = ctx.caller;

  server.registerResource(
    'session',
    new ResourceTemplate(SESSION_URI, {
      list: async () => {
        const page = await sessions.list(owner, { limit: LISTED });
        return {
          resources: page.items.map((s) => ({
            uri: `consilium://sessions/${s.id}`,
            name: s.id,
            title: s.question.slice(0, 80),
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    {
      title: 'A session as Markdown',
      description: 'A stored session (and its thread up to it) as Markdown.',
      mimeType: 'text/markdown',
    },
    async (uri, { id }) => {
      const sessionId = String(id);
      const session = await sessions.read(sessionId, scope, owner);
      // An unknown resource is a protocol error (-32002, resource not found), as the spec has it.
      if (!session) throw new McpError(-32002, `No session "${sessionId}".`, { uri: uri.href });
      const viaShare = scope !== ALL_OWNERS && session.owner !== scope ? scope : undefined;
      const { upTo, later } = await sessions.threadAround(session, true, viaShare);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: threadMarkdown(upTo, later) }] };
    },
  );

  server.registerResource(
    'sources',
    SOURCES_URI,
    {
      title: 'Configured sources',
      description:
        'The model slots a debate can use, and the wiki sources it can be grounded in (`grounding.source`, `wiki_query`).',
      mimeType: 'application/json',
    },
    async (uri) => {
      const sources = { slots: engine.slots, wikis: (await wikis?.info()) ?? [] };
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(sources, null, 2) }] };
    },
  );
};
