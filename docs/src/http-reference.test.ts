import { describe, expect, it } from 'vitest';
import { renderHttpReference } from './http-reference.js';

const doc = {
  openapi: '3.1.0',
  info: { title: 'T<script>', version: '1', description: 'Uses `code` and **bold**.' },
  security: [{ bearerAuth: [] }],
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        summary: 'Get <b>one</b>',
        tags: ['things'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^t_' } }],
        responses: {
          '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        },
      },
    },
    '/health': { get: { operationId: 'health', security: [], responses: { '200': { description: 'up' } } } },
  },
  components: {
    schemas: { Thing: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 1, maximum: 5 } } } },
  },
};

describe('renderHttpReference', () => {
  const { html, css, js, operations } = renderHttpReference(doc);

  it('gives every operation and schema an anchor, the nav a link, and says which are public', () => {
    expect(operations).toEqual(['getThing', 'health']);
    expect(html).toContain('id="op-getThing"');
    expect(html).toContain('href="#op-health"');
    expect(html).toContain('id="schema-Thing"');
    expect(html).toContain('<a href="#schema-Thing"><code>Thing</code></a>');
    expect(html).toMatch(/id="op-health"[\s\S]*class="public">public</);
    expect(html).toMatch(/id="op-getThing"[\s\S]*needs bearerAuth/);
    expect(html).toContain('≤ <code>5</code>');
  });

  it('escapes the contract text and carries no inline script, inline style or outside URL', () => {
    // One script: the search box's, a same-origin file.
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="search.js" defer>']);
    expect(html.replace('<script src="search.js" defer></script>', '')).not.toMatch(/<script|<b>one|style=| on\w+=/i);
    expect(html).toContain('T&lt;script&gt;');
    expect(html).toContain('<code>code</code> and <strong>bold</strong>');
    expect(html.match(/(?:href|src)="([^"]+)"/g)?.filter((a) => /\/\/|^(?:href|src)="http/.test(a))).toEqual([]);
    expect(css).not.toMatch(/url\(|@import/);
  });

  it('fits a phone and links the SDK reference; its search script writes text, never markup', () => {
    expect(css).toMatch(/@media \(max-width: 48rem\) \{[^}]*body \{ display: block; \}/);
    expect(html).toContain('<a href="sdk/">SDK reference</a>');
    expect(js).not.toMatch(/innerHTML|insertAdjacentHTML|document\.write|eval\(|fetch\(/);
  });
});
