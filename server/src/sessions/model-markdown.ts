/**
 * A model's Markdown, re-written from an allow-list so that it keeps its formatting and stays inert.
 *
 * The text is parsed (marked, with its HTML tokenizers off, as the web UI parses it), and the document is written
 * again from the tokens: paragraphs, emphasis, strong, strikethrough, code spans and fenced code, lists (task boxes
 * included), tables, quotes and rules come out as that structure; a heading becomes a bold line (the export's
 * headings are its own); http(s) and mailto links stay links; anything else, raw HTML, images and other links
 * included, comes out as text: a link as its text and its URL in code, an image as its alt text and its URL in
 * code. Every piece of text is backslash-escaped (`escapeMarkdown`), so the only structure a renderer sees is what
 * this module wrote, never what the text spelt.
 */
import { Marked, type Token, type Tokens } from 'marked';

const lexer = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  // `undefined` skips marked's HTML tokenizers: tags and comments lex as text, and Markdown after them still parses.
  tokenizer: { html: () => undefined, tag: () => undefined },
});

/** `text` (a model's Markdown) as inert Markdown with its formatting kept. */
export function modelMarkdown(text: string): string {
  const tokens = lexer.lexer(text.replace(/\r\n?/g, '\n').replace(/\0/g, '\ufffd'));
  return blocks(tokens).join('\n');
}

/** Block tokens as lines; blocks are parted by a blank line (or not, in a tight list item). */
function blocks(tokens: readonly Token[], tight = false): string[] {
  const out: string[] = [];
  // Two lists in a row with the same marker would merge into one: the second takes the other marker.
  let alternate: boolean | undefined;
  for (const token of tokens) {
    if (token.type === 'space' || token.type === 'def') continue;
    const list = token.type === 'list' ? (token as Tokens.List) : undefined;
    alternate = list ? alternate === false : undefined;
    const lines = list ? listLines(list, alternate === true) : block(token);
    if (lines.length === 0) continue;
    // A nested ordered list not starting at 1 cannot interrupt the item's paragraph: it gets a blank line.
    const needsBlank = !tight || (list?.ordered && Number(list.start) !== 1);
    if (out.length > 0 && needsBlank) out.push('');
    out.push(...lines);
  }
  return out;
}

function block(token: Token): string[] {
  switch (token.type) {
    case 'paragraph':
      return paragraph(inline((token as Tokens.Paragraph).tokens));
    case 'text': {
      const t = token as Tokens.Text;
      return paragraph(t.tokens ? inline(t.tokens) : text(t.text));
    }
    case 'heading': {
      const children = (token as Tokens.Heading).tokens;
      const body = inline(children).trim();
      const bold = children.some((c) => c.type === 'strong');
      return paragraph(body === '' || bold ? body : `**${body}**`);
    }
    case 'code':
      return fence((token as Tokens.Code).text, (token as Tokens.Code).lang);
    case 'blockquote':
      return blocks((token as Tokens.Blockquote).tokens).map((line) => (line === '' ? '>' : `> ${line}`));
    case 'table':
      return table(token as Tokens.Table);
    case 'hr':
      // Not `---`: under a line of text that would make it a heading.
      return ['***'];
    default:
      // Raw HTML (with the HTML tokenizers off, none comes) or a token this list does not know: its source as text.
      return paragraph(text(token.raw));
  }
}

/**
 * One paragraph: its lines trimmed (indentation would make code), none blank (a blank line would end it). A line
 * opening with what would start a list or underline a heading is text (the pieces may come from two tokens, `1`
 * and an escaped `.`): it is escaped here, where the line is whole.
 */
function paragraph(body: string): string[] {
  return body
    .split('\n')
    .map((line) =>
      line
        .trim()
        .replace(/^[-+=]/, '\\$&')
        .replace(/^(\d+)([.)])/, '$1\\$2'),
    )
    .filter((line) => line !== '');
}

function listLines(list: Tokens.List, alternate: boolean): string[] {
  const start = Number(list.start) || 1;
  const out: string[] = [];
  list.items.forEach((item, i) => {
    const marker = list.ordered ? `${Math.min(start + i, 999_999_999)}${alternate ? ')' : '.'}` : alternate ? '*' : '-';
    const checkbox = item.tokens.find((t): t is Tokens.Checkbox => t.type === 'checkbox');
    const lines = blocks(
      item.tokens.filter((t) => t.type !== 'checkbox'),
      !list.loose,
    );
    if (checkbox) lines[0] = `[${checkbox.checked ? 'x' : ' '}] ${lines[0] ?? ''}`.trimEnd();
    if (list.loose && i > 0) out.push('');
    const pad = ' '.repeat(marker.length + 1);
    if (lines.length === 0) out.push(marker);
    lines.forEach((line, j) => {
      out.push(j === 0 ? `${marker} ${line}` : line === '' ? '' : pad + line);
    });
  });
  return out;
}

function table(t: Tokens.Table): string[] {
  const row = (cells: readonly Tokens.TableCell[]) => `| ${t.header.map((_, i) => cell(cells[i]?.tokens ?? [])).join(' | ')} |`;
  const rule = t.align.map((a) => (a === 'center' ? ':-:' : a === 'left' ? ':--' : a === 'right' ? '--:' : '---'));
  return [row(t.header), `| ${rule.join(' | ')} |`, ...t.rows.map(row)];
}

/** A table cell's inline text on one line, its pipes escaped even inside code. */
function cell(tokens: readonly Token[]): string {
  return inline(tokens, true)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

function fence(code: string, lang: string | undefined): string[] {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const info = /^[\w+#.-]{1,30}$/.exec(lang?.trim().split(/\s/)[0] ?? '')?.[0] ?? '';
  const marker = '`'.repeat(longest + 1);
  return [marker + info, ...code.replace(/\n+$/, '').split('\n'), marker];
}

function inline(tokens: readonly Token[], inTable = false): string {
  let out = '';
  for (const token of tokens) {
    let piece = inlineToken(token, inTable);
    // A code span right after another would join its backticks to the other's.
    if (piece.startsWith('`') && out.endsWith('`')) piece = ` ${piece}`;
    out += piece;
  }
  return out;
}

function inlineToken(token: Token, inTable: boolean): string {
  const wrap = (mark: string, children: readonly Token[]) => {
    const body = inline(children, inTable).trim();
    return body === '' ? '' : `${mark}${body}${mark}`;
  };
  switch (token.type) {
    case 'text': {
      const t = token as Tokens.Text;
      return t.tokens ? inline(t.tokens, inTable) : text(t.text);
    }
    case 'escape':
      return text((token as Tokens.Escape).text);
    case 'strong':
      return wrap('**', (token as Tokens.Strong).tokens);
    case 'em':
      return wrap('*', (token as Tokens.Em).tokens);
    case 'del':
      return wrap('~~', (token as Tokens.Del).tokens);
    case 'codespan':
      return codeSpan((token as Tokens.Codespan).text, inTable);
    case 'br':
      return '\\\n';
    case 'link': {
      const link = token as Tokens.Link;
      const label = inline(link.tokens, inTable).trim();
      if (safeHref(link.href)) return `[${label || text(link.href)}](<${destination(link.href)}>)`;
      // An autolink's text is its URL: once is enough.
      if (label === '' || label === text(link.href)) return codeSpan(link.href, inTable);
      return `${label} (${codeSpan(link.href, inTable)})`;
    }
    case 'image': {
      const image = token as Tokens.Image;
      const alt = text(image.text).trim();
      return `${alt ? `${alt} ` : ''}(image ${codeSpan(image.href, inTable)})`;
    }
    default:
      // Inline HTML (none comes with the HTML tokenizers off) or an unknown token: its source as text.
      return text(token.raw);
  }
}

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

function safeHref(href: string): boolean {
  try {
    return SAFE_PROTOCOLS.has(new URL(href).protocol) && !/[\s<>]/.test(href);
  } catch {
    return false;
  }
}

/** A link destination inside `<…>`: backslash escapes and entities are decoded there, so `\` and `&` are escaped. */
function destination(href: string): string {
  return href.replace(/[\\<>&]/g, '\\$&');
}

/** A code span: delimited by a backtick run no run inside matches; one line; in a table, `|` escaped. */
function codeSpan(code: string, inTable: boolean): string {
  let body = code.replace(/\n/g, ' ');
  if (inTable) body = body.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = /^`|`$/.test(body) || /^ .* $/.test(body) ? ' ' : '';
  return `${ticks}${pad}${body}${pad}${ticks}`;
}

/**
 * Plain text: entities decoded (a model's `&lt;` means `<`), then every structural character escaped, per line;
 * `!` too, since a link written here may follow it (`!` + `[…](…)` would be an image).
 */
function text(raw: string): string {
  return decodeEntities(raw)
    .split('\n')
    .map((line) => escapeMarkdown(line).replace(/!/g, '\\!'))
    .join('\n');
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]+));/g, (whole, dec, hex, name) => {
    if (name) return NAMED[name] ?? whole;
    const code = dec ? Number(dec) : Number.parseInt(hex, 16);
    return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\ufffd' : String.fromCodePoint(code);
  });
}

/**
 * Backslash-escapes every character that can open structure: HTML and autolinks (`<`), entities (`&`),
 * links and images (`[`), code (`` ` ``), emphasis (`*`, `_`), headings (`#`; `=` and `-` opening a line
 * would underline the one before), quotes (`>`), lists (`-`, `+`, `1.`, `1)` opening a line), tables (`|`),
 * strikethrough and fences (`~`), escapes (`\`).
 * CommonMark lets any ASCII punctuation be escaped, so this is exact: the text renders as itself.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\`*_[\]<>#|~&]/g, '\\$&')
    .replace(/^(\s*)([-+=])/, '$1\\$2')
    .replace(/^(\s*\d+)([.)])/, '$1\\$2');
}
