/** The official MCP client (`@modelcontextprotocol/sdk`'s `Client`) connected to a test server's `/mcp` over Streamable HTTP. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function connectMcp(baseUrl: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'consilium-tests', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool result's text (its first content block). */
export const textOf = (result: object): string =>
  (result as { content?: { type: string; text?: string }[] }).content?.[0]?.text ?? '';
