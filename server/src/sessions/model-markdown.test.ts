import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { modelMarkdown } from './model-markdown.js';

/** What a viewer shows: the export rendered by a CommonMark renderer with raw HTML on. */
const render = (text: string) => new MarkdownIt({ html: true, linkify: true }).render(modelMarkdown(text)).trim();

describe('modelMarkdown keeps formatting from its allow-list', () => {
  it('emphasis, strong, strikethrough and code spans', () => {
    expect(render('A **bold** and *em* and _em_ and ~~gone~~ and `a<b>` here')).toBe(
      '<p>A <strong>bold</strong> and <em>em</em> and <em>em</em> and <s>gone</s> and <code>a&lt;b&gt;</code> here</p>',
    );
    expect(render('``a ` b`` then `c`')).toBe('<p><code>a ` b</code> then <code>c</code></p>');
  });

  it('lists: bullets, ordered from their start, nested, loose, task boxes; two lists in a row stay two', () => {
    expect(render('- one\n- two\n  1. deep\n  2. deeper\n- three')).toBe(
      '<ul>\n<li>one</li>\n<li>two\n<ol>\n<li>deep</li>\n<li>deeper</li>\n</ol>\n</li>\n<li>three</li>\n</ul>',
    );
    expect(render('3. c\n4. d')).toBe('<ol start="3">\n<li>c</li>\n<li>d</li>\n</ol>');
    expect(render('- a\n\n- b')).toBe('<ul>\n<li>\n<p>a</p>\n</li>\n<li>\n<p>b</p>\n</li>\n</ul>');
    expect(modelMarkdown('- [x] done\n- [ ] todo')).toBe('- [x] done\n- [ ] todo');
    expect(render('- a\n\n* b').match(/<ul>/g)).toHaveLength(2);
  });

  it('fenced and indented code, with a fence longer than any backtick run inside and its language kept', () => {
    expect(modelMarkdown('```ts\nconst a = `x`;\n<script>alert(1)</script>\n```')).toBe(
      '```ts\nconst a = `x`;\n<script>alert(1)</script>\n```',
    );
    expect(render('````\n```\n<img src=x>\n````')).toBe('<pre><code>```\n&lt;img src=x&gt;\n</code></pre>');
    expect(render('para\n\n    indented <b>\n')).toBe('<p>para</p>\n<pre><code>indented &lt;b&gt;\n</code></pre>');
    expect(modelMarkdown('```js onload=x\n1\n```')).toBe('```js\n1\n```');
  });

  it('tables with their alignment, pipes inside code kept in their cell', () => {
    const html = render('| a | b |\n|:--|:-:|\n| `x\\|y` | **c** |');
    expect(html).toContain('<th style="text-align:left">a</th>');
    expect(html).toContain('<th style="text-align:center">b</th>');
    expect(html).toContain('<td style="text-align:left"><code>x|y</code></td>');
    expect(html).toContain('<td style="text-align:center"><strong>c</strong></td>');
  });

  it('quotes and rules; a heading becomes a bold line, never a heading', () => {
    expect(render('> quoted **b**\n\n***')).toBe('<blockquote>\n<p>quoted <strong>b</strong></p>\n</blockquote>\n<hr>');
    expect(render('## Verdict\n\nTitle\n===')).toBe('<p><strong>Verdict</strong></p>\n<p><strong>Title</strong></p>');
  });

  it('http(s) and mailto links stay links; autolinks too', () => {
    expect(render('[docs](https://example.com/a_(b)?x=1&y=2)')).toBe(
      '<p><a href="https://example.com/a_(b)?x=1&amp;y=2">docs</a></p>',
    );
    expect(render('<https://example.com> and www.example.org')).toBe(
      '<p><a href="https://example.com">https://example.com</a> and <a href="http://www.example.org">www.example.org</a></p>',
    );
  });
});

describe('modelMarkdown keeps everything else inert', () => {
  it('raw HTML is text, and Markdown after it still renders', () => {
    expect(render('<script>alert(1)</script> **b**')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt; <strong>b</strong></p>');
    expect(render('<img src=x onerror=alert(1)>')).toBe('<p>&lt;img src=x onerror=alert(1)&gt;</p>');
    expect(render('<div>\n<b>x</b>\n</div>')).toBe('<p>&lt;div&gt;\n&lt;b&gt;x&lt;/b&gt;\n&lt;/div&gt;</p>');
  });

  it('an image is its alt text and its URL in code', () => {
    expect(render('![a cat](https://evil.example/p.png)')).toBe('<p>a cat (image <code>https://evil.example/p.png</code>)</p>');
    expect(render('![x](javascript:alert(1))')).toBe('<p>x (image <code>javascript:alert(1)</code>)</p>');
  });

  it('javascript:, data: and other links are their text and their URL in code', () => {
    expect(render('[click](javascript:alert(1))')).toBe('<p>click (<code>javascript:alert(1)</code>)</p>');
    expect(render('[x](data:text/html,<b>hi</b>)')).not.toMatch(/<a|<b>/);
    expect(render('[x]: javascript:alert(1)\n\n[x]')).toBe('<p>x (<code>javascript:alert(1)</code>)</p>');
    expect(render('<javascript:alert(1)>')).toBe('<p><code>javascript:alert(1)</code></p>');
  });

  it('entities mean the character they name, shown as text', () => {
    expect(render('&lt;script&gt;alert(1)&lt;/script&gt; &#60;img&#x3E; &amp;lt; &copy;')).toBe(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;img&gt; &amp;lt; &amp;copy;</p>',
    );
  });

  it('text spelling structure stays text', () => {
    expect(render('a\n\\# not a heading\n\\- not a list\n1\\. not ordered\na | b\n\\<b>')).toBe(
      '<p>a\n# not a heading\n- not a list\n1. not ordered\na | b\n&lt;b&gt;</p>',
    );
    expect(render('Title\n---')).toBe('<p><strong>Title</strong></p>');
  });
});
