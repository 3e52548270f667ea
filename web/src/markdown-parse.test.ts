import { describe, expect, it } from 'vitest';
import { escapeHtml, markdown } from './markdown-parse.js';

const html = (text: string) => markdown.parse(text) as string;

describe('markdown (untrusted model output)', () => {
  it('shows inline tags as the text they are', () => {
    expect(html('Put it inside a <textarea> element? And what about <title>?')).toBe(
      '<p>Put it inside a &lt;textarea&gt; element? And what about &lt;title&gt;?</p>\n',
    );
  });

  it('keeps Markdown after a cut-off <script: the rest is neither a script block nor dropped', () => {
    const out = html('Before.\n\n<script src="x.js"\n## After the script\n\nStill **here**.');
    expect(out).toContain('<p>&lt;script src=&quot;x.js&quot;</p>');
    expect(out).toContain('<h2>After the script</h2>');
    expect(out).toContain('<p>Still <strong>here</strong>.</p>');
    expect(out).not.toMatch(/<script/i);
  });

  it('shows HTML blocks, comments and handlers as text, with Markdown around them still rendered', () => {
    const out = html('<div>raw block</div>\n\n<!-- note -->\n\n- *one* <img src=x onerror=alert(1)>\n- two');
    expect(out).toContain('&lt;div&gt;raw block&lt;/div&gt;');
    expect(out).toContain('&lt;!-- note --&gt;');
    expect(out).toContain('<li><em>one</em> &lt;img src=x onerror=alert(1)&gt;</li>');
    // Nothing but marked's own tags: every `<` from the source is escaped.
    expect(new Set(out.match(/<\/?[a-z]+/gi))).toEqual(new Set(['<p', '</p', '<ul', '</ul', '<li', '</li', '<em', '</em']));
  });

  it('escapes code once: tags in code show as written, not as entities', () => {
    expect(html('Use `<b>bold</b>` here.')).toBe('<p>Use <code>&lt;b&gt;bold&lt;/b&gt;</code> here.</p>\n');
    expect(html('```html\n<textarea>x</textarea>\n```')).toContain('&lt;textarea&gt;x&lt;/textarea&gt;');
  });

  it('still renders Markdown: headings, lists, emphasis, links and autolinks', () => {
    const out = html('# Title\n\n1. **a**\n2. [docs](https://example.org/a?b=1&c=2)\n\n<https://example.org/x>');
    expect(out).toContain('<h1>Title</h1>');
    expect(out).toContain('<li><strong>a</strong></li>');
    expect(out).toContain('<a href="https://example.org/a?b=1&amp;c=2">docs</a>');
    expect(out).toContain('<a href="https://example.org/x">https://example.org/x</a>');
  });

  it('shows an image as its alt text: nothing in an answer makes the page fetch', () => {
    expect(html('![a tracker](https://evil.example/t.gif)')).toBe('<p>a tracker</p>\n');
  });

  it('escapes every character HTML reads specially', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
