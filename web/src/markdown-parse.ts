/**
 * The Markdown parser for untrusted text (model output): Markdown formatting renders, but raw HTML in the source is
 * never HTML. marked would pass tags through (`<textarea>` swallowing the rest of the text, a cut-off `<script`
 * turning everything after it into a script block for the sanitizer to drop); here it does not recognise them at all,
 * so `<`, tags and comments lex as ordinary text and come out escaped, exactly as written. No DOM needed: this is what
 * `markdown.ts` sanitizes, and what the unit tests read in Node.
 */
import { Marked } from 'marked';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export const markdown = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  // `undefined` (not `false`) skips marked's own HTML tokenizers: the lexer moves on to paragraphs and plain text.
  tokenizer: {
    html: () => undefined,
    tag: () => undefined,
  },
  renderer: {
    // Unreachable with the tokenizers above; if a token ever came through, it is still shown as text.
    html: ({ text }) => escapeHtml(text),
    // An image would make the page fetch a URL the model chose: its alt text stands in for it.
    image: ({ text }) => escapeHtml(text),
  },
});
