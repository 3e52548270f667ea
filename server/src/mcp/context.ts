/** What every tool and resource of one MCP session works with: the runs, the history, and who is asking. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Runs } from '../runs/runs.js';
import type { OwnerScope } from '../sessions/sessions.js';

/** Who an MCP session belongs to: the user its bearer token is for. */
export interface McpCaller {
  /** The user's id: the owner of what they start. */
  owner: string;
  /** What they may read by id: their own sessions, or an admin's any. */
  scope: OwnerScope;
}

/** Why a run may not start now, as a tool error says it. */
export interface RunRefusal {
  code: 'rate_limited' | 'draining';
  message: string;
  retryAfterS: number;
}

/**
 * Lets one of `owner`'s runs in under the limits every surface shares (start rate, running debates, a draining
 * instance): its `release` for when the run ends, or why not.
 */
export type Admit = (owner: string) => Promise<{ release: () => void } | { refused: RunRefusal }>;

export interface ToolContext {
  runs: Runs;
  /** Absent: no limits apply. */
  admit?: Admit;
  caller: McpCaller;
  /** The session's page in the web UI. */
  link: (sessionId: string) => string;
}

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How each group of tools is added to a server. */
export type Register = (server: McpServer, ctx: ToolContext) => void;
