/**
 * Untrusted Markdown (model output) → sanitized HTML. `markdown-parse.ts` renders Markdown with any raw HTML in it
 * escaped as text, so the source's tags are never parsed, dropped or run. DOMPurify then checks the result against an
 * allow-list of inert markup, a second layer that does not trust the parser's escaping: no script, no event handler
 * attributes, no `javascript:` or other non-http(s)/mailto link (the link stays as its text), no images or media that
 * would fetch a foreign URL, no inline style (the CSP forbids it anyway). Links open in a new tab without referrer or
 * opener. Questions are not Markdown: the session view shows them as plain text.
 */
import DOMPurify from 'dompurify';
import { markdown as marked } from './markdown-parse.js';

const purify = DOMPurify(window);
purify.setConfig({
  ALLOWED_TAGS: [
    'p',
    'br',
    'hr',
    'em',
    'strong',
    'del',
    's',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'input',
    'sup',
    'sub',
  ],
  ALLOWED_ATTR: ['href', 'title', 'type', 'checked', 'disabled', 'start', 'align'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  ALLOW_DATA_ATTR: false,
});
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('rel', 'noopener noreferrer nofollow');
    node.setAttribute('target', '_blank');
  }
  if (node.tagName === 'INPUT') {
    if (node.getAttribute('type') !== 'checkbox') node.remove();
    else node.setAttribute('disabled', '');
  }
});

/** Source characters per part of a long text: one part is parsed and sanitized in a few milliseconds. */
const PART = 1500;

/**
 * Long untrusted Markdown as a list of parts, each sanitized HTML (or `undefined`: render the part as text), so a long
 * answer can be turned into HTML one part per task. The whole text is lexed once (reference links resolve across
 * parts); each part is a run of whole top-level blocks, parsed and sanitized on its own when `part(i)` is called.
 */
export interface MarkdownParts {
  count: number;
  /** Part `i` as sanitized HTML (`undefined`: nothing to show, or plain text when the whole text is one part). */
  part(i: number): string | undefined;
  /** Part `i`'s source, to show as text until it is rendered. */
  raw(i: number): string;
}

export function markdownParts(text: string): MarkdownParts {
  if (cache.has(text) || text.length <= PART) return { count: 1, part: () => renderMarkdown(text), raw: () => text };
  const tokens = marked.lexer(text);
  const groups: (typeof tokens)[] = [];
  let size = PART;
  for (const token of tokens) {
    if (size >= PART) {
      groups.push(Object.assign([], { links: tokens.links }) as unknown as typeof tokens);
      size = 0;
    }
    groups.at(-1)!.push(token);
    size += token.raw.length;
  }
  return {
    count: groups.length,
    part: (i) => {
      const html = purify.sanitize(marked.parser(groups[i]!));
      return html === '' ? undefined : html;
    },
    raw: (i) => groups[i]!.map((t) => t.raw).join(''),
  };
}

/** Text with nothing Markdown or HTML would act on: shown as it is, with no parse or sanitize pass. */
const PLAIN = /^[^<>&*_`[\]!#|~\\\n]*$/;

const cache = new Map<string, string>();

/**
 * Sanitized HTML for untrusted Markdown, or `undefined` when the text is plain (render it as text). Results are cached:
 * a session's view renders the same statements and answers many times.
 */
export function renderMarkdown(text: string, options: { cache?: boolean } = {}): string | undefined {
  if (PLAIN.test(text) && !/^\s*(?:[-+>]|\d+[.)])\s/.test(text)) return undefined;
  let html = cache.get(text);
  // The growing end of a streamed answer changes every frame: caching it would only push useful entries out.
  if (html === undefined && options.cache === false) return purify.sanitize(marked.parse(text) as string);
  if (html === undefined) {
    html = purify.sanitize(marked.parse(text) as string);
    if (cache.size > 500) cache.delete(cache.keys().next().value!);
    cache.set(text, html);
  }
  return html;
}
