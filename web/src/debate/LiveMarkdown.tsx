import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { renderMarkdown } from '../markdown.js';
import { closeOpenStrong } from './open-strong.js';
import { StreamingText } from './StreamingText.js';

/**
 * Markdown as it streams. The text is cut into chunks after blank lines outside code fences (≥ CHUNK characters
 * each); a cut depends only on the text before it, so a finished chunk never changes: it is rendered once (cached)
 * and its node left alone, and each frame re-renders only the growing tail (when it is short; a long tail with no
 * blank line is plain text until one comes). The same sanitizer as every other rendering (`renderMarkdown`).
 */
const CHUNK = 800;
/** A tail longer than this waits as plain text: parsing it on every frame would cost more than a frame has. */
const TAIL = 4000;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function chunksOf(text: string): { settled: string[]; tail: string } {
  const settled: string[] = [];
  let start = 0;
  let fence: string | undefined;
  let line = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', line)) {
    const content = text.slice(line, end);
    line = end + 1;
    const marker = FENCE.exec(content)?.[1];
    if (marker && !fence) fence = marker;
    else if (marker && fence && marker[0] === fence[0] && marker.length >= fence.length && content.trim() === marker)
      fence = undefined;
    else if (!fence && content.trim() === '' && line - start >= CHUNK && line < text.length) {
      settled.push(text.slice(start, line));
      start = line;
    }
  }
  return { settled, tail: text.slice(start) };
}

/**
 * Source characters shown before "show all": parsing, sanitising and laying out a 5 MB answer in one go would hold
 * the page for seconds. The rest is a click away, as plain text in small blocks. A long answer is rarely over 15,000;
 * a page showing the same text twice (its column and its round) lays out both in one task when it opens.
 */
export const SHOWN = 20_000;

/** `text` cut near `SHOWN` at a paragraph, else a line, else a space. */
export function bounded(text: string): { head: string; rest: string } {
  if (text.length <= SHOWN) return { head: text, rest: '' };
  const window = text.slice(SHOWN / 2, SHOWN);
  const at = [window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' ')].find((i) => i !== -1);
  const cut = at === undefined ? SHOWN : SHOWN / 2 + at + 1;
  return { head: text.slice(0, cut), rest: text.slice(cut) };
}

/** The part of a long text past `SHOWN`: its size, and all of it as plain text on request. */
export function Rest({ rest, streaming }: { rest: string; streaming?: boolean }) {
  const [open, setOpen] = useState(false);
  if (rest === '') return null;
  if (open) return <StreamingText text={rest} class="rest" />;
  return (
    <p class="rest-note muted small">
      … {rest.length.toLocaleString('en')} more characters{streaming ? ' so far' : ''}{' '}
      <button type="button" class="link" onClick={() => setOpen(true)}>
        Show all
      </button>
    </p>
  );
}

const Chunk = memo(function Chunk({ text }: { text: string }) {
  const html = renderMarkdown(text);
  // The HTML is DOMPurify's output (see markdown.ts); `undefined`: nothing Markdown acts on, shown as text.
  if (html === undefined) return <p class="md-chunk">{text}</p>;
  return <div class="md-chunk" dangerouslySetInnerHTML={{ __html: html }} />;
});

/** An answer (or verdict) still being written, rendered as Markdown chunk by chunk. */
export function LiveMarkdown({ text, class: className, done }: { text: string; class?: string; done?: boolean }) {
  const { head, rest } = bounded(text);
  const { settled, tail } = chunksOf(visibleControls(head));
  // A finished text's tail no longer changes: rendered (and cached) once whatever its length.
  if (done) settled.push(tail);
  const tailHtml = !done && tail.length <= TAIL ? renderMarkdown(closeOpenStrong(tail), { cache: false }) : undefined;
  return (
    <div class={`md live-md ${className ?? ''}`}>
      {settled.map((chunk, i) => (
        <Chunk key={i} text={chunk} />
      ))}
      {done ? null : tail.length > TAIL ? (
        <StreamingText text={tail} />
      ) : tailHtml === undefined ? (
        tail.trim() && <p class="md-chunk">{tail}</p>
      ) : (
        <div class="md-chunk" dangerouslySetInnerHTML={{ __html: tailHtml }} />
      )}
      <Rest rest={rest} streaming={!done} />
    </div>
  );
}
