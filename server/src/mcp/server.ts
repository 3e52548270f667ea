/** One MCP server for one caller: every tool and resource, bound to the user its bearer token is for. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from './context.js';
import { registerDebateTools } from './debate-tools.js';
import { registerResources } from './resources.js';
import { registerSessionTools } from './session-tools.js';
import { registerWikiTool } from './wiki-tool.js';

export function createMcpServer(ctx: ToolContext, version: string): McpServer {
  const server = new McpServer(
    { name: 'consilium', title: 'Consilium', version },
    {
      instructions:
        'Consilium puts one question to several language models from different providers, lets them debate in rounds, and writes a verdict with prioritised actions. Use `consult` for a decision worth a debate, `ask` or `parallel` for quick answers, and the session tools to read the shared history.',
    },
  );
  registerDebateTools(server, ctx);
  registerSessionTools(server, ctx);
  registerWikiTool(server, ctx);
  registerResources(server, ctx);
  return server;
}
