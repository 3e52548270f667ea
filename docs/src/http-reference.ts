/**
 * The HTTP reference: one static HTML page and one stylesheet rendered from the OpenAPI contract.
 * No script, no font or image from anywhere, no request of any kind when it is opened, so it works
 * offline and under `Content-Security-Policy: default-src 'self'`. Every operation gets an anchor
 * (`#op-<operationId>`), every component schema one (`#schema-<Name>`).
 */

type Json = { [key: string]: unknown };

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'] as const;
const SCHEMA_REF = '#/components/schemas/';
const RESPONSE_REF = '#/components/responses/';

const esc = (text: unknown): string =>
  String(text ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

/** The contract's Markdown, kept small: paragraphs, `code` and **bold**; everything else stays text. */
function prose(markdown: unknown): string {
  if (typeof markdown !== 'string' || markdown.trim() === '') return '';
  return markdown
    .trim()
    .split(/\n{2,}/)
    .map(
      (para) =>
        `<p>${esc(para)
          .replace(/`([^`]+)`/g, '<code>$1</code>')
          .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')}</p>`,
    )
    .join('\n');
}

const schemaLink = (name: string) => `<a href="#schema-${esc(name)}"><code>${esc(name)}</code></a>`;

/** A schema in one line: a link for a `$ref`, else its type with constraints. */
function typeOf(schema: unknown): string {
  const s = (schema ?? {}) as Json;
  if (typeof s.$ref === 'string' && s.$ref.startsWith(SCHEMA_REF)) return schemaLink(s.$ref.slice(SCHEMA_REF.length));
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) return (s[key] as unknown[]).map(typeOf).join(key === 'allOf' ? ' &amp; ' : ' | ');
  }
  if (Array.isArray(s.enum)) return s.enum.map((v) => `<code>${esc(JSON.stringify(v))}</code>`).join(' | ');
  if ('const' in s) return `<code>${esc(JSON.stringify(s.const))}</code>`;
  let type = Array.isArray(s.type) ? s.type.join(' | ') : String(s.type ?? 'any');
  if (s.type === 'array') type = `array of ${typeOf(s.items)}`;
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') {
    type = `map of ${typeOf(s.additionalProperties)}`;
  }
  return esc(type).replace(/^array of /, 'array of ') + constraints(s);
}

function constraints(s: Json): string {
  const parts: string[] = [];
  const pairs: [string, string][] = [
    ['minimum', '≥'],
    ['exclusiveMinimum', '>'],
    ['maximum', '≤'],
    ['exclusiveMaximum', '<'],
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
    ['pattern', 'pattern'],
    ['format', 'format'],
    ['default', 'default'],
  ];
  for (const [key, label] of pairs) {
    if (s[key] !== undefined)
      parts.push(`${label} <code>${esc(typeof s[key] === 'string' ? s[key] : JSON.stringify(s[key]))}</code>`);
  }
  return parts.length > 0 ? ` <span class="constraints">(${parts.join(', ')})</span>` : '';
}

function propertiesTable(schema: Json): string {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) return '';
  const rows = names.map(
    (name) =>
      `<tr><td><code>${esc(name)}</code>${required.has(name) ? ' <span class="required">required</span>' : ''}</td><td>${typeOf(
        properties[name],
      )}</td><td>${prose(properties[name]?.description)}</td></tr>`,
  );
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function content(media: unknown): string {
  const entries = Object.entries((media ?? {}) as Record<string, Json>);
  return entries.map(([type, m]) => `<div class="media"><code>${esc(type)}</code> ${typeOf(m.schema)}</div>`).join('');
}

interface Operation {
  method: string;
  path: string;
  spec: Json;
}

/**
 * Renders the contract; returns the page, its stylesheet (served beside it as `reference.css`) and its one script
 * (`search.js`, same origin: the search box; the page reads whole without it).
 */
export function renderHttpReference(doc: Json): { html: string; css: string; js: string; operations: string[] } {
  const info = (doc.info ?? {}) as Json;
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  const components = (doc.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  const sharedResponses = (components.responses ?? {}) as Record<string, Json>;
  const security = (doc.security ?? []) as Json[];

  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) if (item[method]) operations.push({ method, path, spec: item[method] as Json });
  }
  const tags = [...new Set(operations.map((o) => ((o.spec.tags as string[] | undefined) ?? ['other'])[0]!))];

  const renderOperation = ({ method, path, spec }: Operation): string => {
    const id = String(spec.operationId);
    const params = ((spec.parameters ?? []) as Json[]).map(
      (p) =>
        `<tr><td><code>${esc(p.name)}</code>${p.required ? ' <span class="required">required</span>' : ''}</td><td>${esc(
          p.in,
        )}</td><td>${typeOf(p.schema)}</td><td>${prose(p.description)}</td></tr>`,
    );
    const body = spec.requestBody as Json | undefined;
    const opSecurity = (spec.security as Json[] | undefined) ?? security;
    const auth =
      opSecurity.length === 0 || opSecurity.every((s) => Object.keys(s).length === 0)
        ? '<span class="public">public</span>'
        : `needs ${opSecurity.map((s) => Object.keys(s).map(escape).join(' + ')).join(' or ')}`;
    const responses = Object.entries((spec.responses ?? {}) as Record<string, Json>).map(([status, r]) => {
      const ref = typeof r.$ref === 'string' && r.$ref.startsWith(RESPONSE_REF) ? r.$ref.slice(RESPONSE_REF.length) : undefined;
      const resolved = ref ? (sharedResponses[ref] ?? {}) : r;
      return `<tr><td><code>${esc(status)}</code></td><td>${prose(resolved.description)}</td><td>${content(resolved.content)}</td></tr>`;
    });
    return `<section class="operation" id="op-${esc(id)}">
<h3><span class="method ${esc(method)}">${esc(method.toUpperCase())}</span> <code class="path">${esc(path)}</code></h3>
<p class="summary">${esc(spec.summary)} <span class="operation-id">operationId <code>${esc(id)}</code> · ${auth}</span></p>
${prose(spec.description)}
${params.length > 0 ? `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>${params.join('')}</tbody></table>` : ''}
${body ? `<h4>Request body${body.required ? ' <span class="required">required</span>' : ''}</h4>${content(body.content)}` : ''}
<h4>Responses</h4><table><thead><tr><th>Status</th><th>Description</th><th>Body</th></tr></thead><tbody>${responses.join('')}</tbody></table>
</section>`;
  };

  const nav = tags
    .map((tag) => {
      const items = operations
        .filter((o) => ((o.spec.tags as string[] | undefined) ?? ['other'])[0] === tag)
        .map(
          (o) =>
            `<li><a href="#op-${esc(o.spec.operationId)}"><span class="method ${esc(o.method)}">${esc(o.method.toUpperCase())}</span> ${esc(o.path)}</a></li>`,
        );
      return `<li><span class="tag">${esc(tag)}</span><ul>${items.join('')}</ul></li>`;
    })
    .join('');

  const sections = tags
    .map(
      (tag) =>
        `<section class="tag-group" id="tag-${esc(tag)}"><h2>${esc(tag)}</h2>${operations
          .filter((o) => ((o.spec.tags as string[] | undefined) ?? ['other'])[0] === tag)
          .map(renderOperation)
          .join('\n')}</section>`,
    )
    .join('\n');

  const schemaSections = Object.entries(schemas)
    .map(
      ([name, s]) =>
        `<section class="schema" id="schema-${esc(name)}"><h3><code>${esc(name)}</code></h3>${prose(s.description)}${
          s.properties ? propertiesTable(s) : `<p>${typeOf({ ...s, description: undefined })}</p>`
        }</section>`,
    )
    .join('\n');

  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(info.title)} ${esc(info.version)} — HTTP reference</title>
<link rel="stylesheet" href="reference.css">
<script src="search.js" defer></script>
</head>
<body>
<nav><p class="brand">${esc(info.title)} <span>${esc(info.version)}</span></p>
<form class="search" role="search" hidden><label for="search">Search</label> <input type="search" id="search" placeholder="operation, path, schema…" autocomplete="off"> <output id="search-count" for="search"></output></form>
<ul>${nav}</ul><p><a href="#schemas">Schemas</a> · <a href="../openapi.json">openapi.json</a> · <a href="sdk/">SDK reference</a></p></nav>
<main>
<header><h1>${esc(info.title)} — HTTP reference</h1><p class="see-also">The TypeScript client for these operations: the <a href="sdk/">SDK reference</a>.</p>${prose(info.description)}</header>
${sections}
<section id="schemas"><h2>Schemas</h2>${schemaSections}</section>
</main>
</body>
</html>
`;
  return { html, css: CSS, js: SEARCH_JS, operations: operations.map((o) => String(o.spec.operationId)) };
}

const CSS = `:root { color-scheme: light dark; --fg: #1d1f23; --bg: #fff; --muted: #5f6570; --line: #d8dbe0; --code: #f3f4f6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e7ea; --bg: #15171b; --muted: #9aa0aa; --line: #30343b; --code: #22252b; } }
* { box-sizing: border-box; }
body { margin: 0; display: grid; grid-template-columns: 18rem minmax(0, 1fr); font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
nav { position: sticky; top: 0; height: 100vh; overflow: auto; padding: 1rem; border-right: 1px solid var(--line); font-size: 13px; }
nav ul { list-style: none; margin: 0; padding: 0; } nav li li { margin: .15rem 0 .15rem .5rem; }
nav a { color: inherit; text-decoration: none; } nav a:hover { text-decoration: underline; }
.brand { font-weight: 600; font-size: 16px; } .brand span, .tag { color: var(--muted); }
.tag { display: block; margin-top: .75rem; text-transform: uppercase; font-size: 11px; letter-spacing: .05em; }
main { padding: 1rem 2rem 4rem; max-width: 70rem; min-width: 0; overflow-wrap: anywhere; }
pre { overflow-x: auto; max-width: 100%; }
.search { margin: .5rem 0 1rem; } .search input { width: 100%; font: inherit; padding: .3rem .4rem; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
.search label { font-weight: 600; } .search output { color: var(--muted); font-size: 12px; }
[data-hidden] { display: none !important; }
h2 { border-bottom: 1px solid var(--line); padding-bottom: .25rem; margin-top: 2.5rem; text-transform: capitalize; }
.operation, .schema { border: 1px solid var(--line); border-radius: 6px; padding: .25rem 1rem 1rem; margin: 1rem 0; }
.summary { font-weight: 500; } .operation-id, .constraints { color: var(--muted); font-weight: 400; font-size: 13px; }
code { background: var(--code); padding: 0 .25rem; border-radius: 3px; font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; } th, td { text-align: left; vertical-align: top; border-top: 1px solid var(--line); padding: .35rem .5rem; }
td p { margin: 0; } .required { color: #b4232a; font-size: 11px; } .public { color: #1a7f37; }
.method { display: inline-block; min-width: 3.5rem; font: 600 11px/1.6 ui-monospace, monospace; text-align: center; border-radius: 3px; color: #fff; background: #6b7280; }
.method.get { background: #1f6feb; } .method.post { background: #1a7f37; } .method.delete { background: #b4232a; } .method.put, .method.patch { background: #9a6700; }
.media { margin: .25rem 0; }
/* A phone: the menu above the page, tables scrolling inside themselves, never the page sideways. */
@media (max-width: 48rem) {
  body { display: block; }
  nav { position: static; height: auto; border-right: 0; border-bottom: 1px solid var(--line); }
  main { padding: .5rem 1rem 3rem; }
  table { display: block; overflow-x: auto; }
  .operation, .schema { padding: .25rem .6rem .6rem; }
}
`;

/**
 * The search box: filters the operations (method, path, summary, operationId, tag) and schemas as you type, in the
 * page and in its menu. Plain DOM, no dependency; `textContent` only, so nothing typed becomes markup.
 */
const SEARCH_JS = `'use strict';
document.addEventListener('DOMContentLoaded', () => {
  const form = document.querySelector('form.search');
  const input = document.getElementById('search');
  const count = document.getElementById('search-count');
  if (!form || !input || !count) return;
  form.hidden = false;
  form.addEventListener('submit', (e) => e.preventDefault());
  const items = [...document.querySelectorAll('section.operation, section.schema')].map((el) => {
    const link = document.querySelector('nav a[href="#' + el.id + '"]');
    const group = el.closest('section.tag-group');
    const heading = el.querySelector('h3');
    const summary = el.querySelector('.summary');
    const parts = [el.id, heading ? heading.textContent : '', summary ? summary.textContent : '', group ? group.id : ''];
    return { el, link: link && link.closest('li'), text: parts.join(' ').toLowerCase() };
  });
  const apply = () => {
    const words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let shown = 0;
    for (const item of items) {
      const match = words.every((w) => item.text.includes(w));
      if (match) shown += 1;
      item.el.toggleAttribute('data-hidden', !match);
      if (item.link) item.link.toggleAttribute('data-hidden', !match);
    }
    for (const group of document.querySelectorAll('section.tag-group, #schemas')) {
      group.toggleAttribute('data-hidden', !group.querySelector('section.operation:not([data-hidden]), section.schema:not([data-hidden])'));
    }
    count.textContent = words.length ? shown + (shown === 1 ? ' match' : ' matches') : '';
  };
  input.addEventListener('input', apply);
  const query = new URLSearchParams(location.search).get('q');
  if (query) {
    input.value = query;
    apply();
  }
});
`;
