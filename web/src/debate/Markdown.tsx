import { useEffect, useState } from 'preact/hooks';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { type MarkdownParts, markdownParts, renderMarkdown } from '../markdown.js';
import { bounded, Rest } from './LiveMarkdown.js';
import { StreamingText } from './StreamingText.js';

/**
 * Markdown work is queued and run when the page is free, in slices of a few milliseconds: a reopened session of 25
 * long answers shows their text at once and turns it into Markdown part by part (see `markdownParts`), never in a
 * main-thread task long enough to hold up input or a frame.
 */
const queue: (() => void)[] = [];
let draining = false;
const SLICE_MS = 8;
/** At most this many parts per slice: a cached part costs nothing to make but its HTML still costs to insert. */
const SLICE_JOBS = 4;
// A message port yields to the event loop without the 4 ms clamp nested timers get.
const channel = new MessageChannel();
channel.port1.onmessage = () => drain();
function drain() {
  const start = performance.now();
  for (let n = 0; queue.length > 0 && n < SLICE_JOBS && performance.now() - start < SLICE_MS; n++) queue.shift()!();
  if (queue.length === 0) draining = false;
  // A timer, not the port, between slices that did work: input and rendering get their turn first.
  else setTimeout(drain, 0);
}
function whenFree(job: () => void) {
  queue.push(job);
  if (draining) return;
  draining = true;
  channel.port2.postMessage(0);
}

/** Texts shorter than this are rendered at once; longer ones part by part. */
const LONG = 600;
/** Finished renderings of long texts, so a folded round unfolds (or a card re-mounts) at once. */
const done = new Map<string, (string | undefined)[]>();
const remember = (text: string, parts: (string | undefined)[]) => {
  if (done.size > 200) done.delete(done.keys().next().value!);
  done.set(text, parts);
};

type Rendered = { text: string; parts: (string | undefined)[]; source?: MarkdownParts };

/** What to show at once: short texts rendered, long ones' first parts if they were rendered before (the rest follow). */
const initial = (text: string): Rendered | undefined => {
  if (text.length < LONG) return { text, parts: [renderMarkdown(text)] };
  const parts = done.get(text);
  if (!parts) return undefined;
  if (parts.length <= SLICE_JOBS) return { text, parts };
  return { text, parts: parts.slice(0, SLICE_JOBS), source: { count: parts.length, part: (i) => parts[i], raw: () => '' } };
};

/**
 * Sanitized Markdown for untrusted text (model output): control characters and bidi overrides shown as visible marks,
 * and a huge text bounded (the rest behind "show all", see `bounded`).
 */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const { head, rest } = bounded(text);
  if (rest === '') return <MarkdownBody text={visibleControls(head)} class={className} />;
  return (
    <div class={className}>
      <MarkdownBody text={visibleControls(head)} />
      <Rest rest={rest} />
    </div>
  );
}

function MarkdownBody({ text, class: className }: { text: string; class?: string }) {
  const [state, setState] = useState<Rendered | undefined>(() => initial(text));
  const current = state?.text === text ? state : initial(text);
  useEffect(() => {
    if (current && !current.source) return;
    let live = true;
    // Parts rendered before are shown again a few per slice, like new ones. A new text is lexed in a job of its own:
    // five answers mounting at once (a round unfolded) must not lex five long texts in one task.
    let source = current?.source;
    const parts: (string | undefined)[] = current ? [...current.parts] : [];
    const step = () => {
      if (!live) return;
      if (!source) {
        source = markdownParts(text);
        return whenFree(step);
      }
      parts.push(source.part(parts.length));
      const finished = parts.length === source.count;
      if (finished) remember(text, parts);
      setState({ text, parts: [...parts], ...(!finished && { source }) });
      if (!finished) whenFree(step);
    };
    whenFree(step);
    return () => {
      live = false;
    };
  }, [text]);
  if (!current) return <StreamingText text={text} class={`md ${className ?? ''}`} />;
  const { parts, source } = current;
  if (parts.length === 1 && !source) return <Part html={parts[0]} text={text} class={`md ${className ?? ''}`} />;
  const pending = source ? Array.from({ length: source.count - parts.length }, (_, k) => parts.length + k) : [];
  return (
    <div class={`md ${className ?? ''}`}>
      {parts.map((html, i) =>
        // An empty part (`undefined`) shows nothing; the HTML is DOMPurify's output (see markdown.ts).
        html === undefined ? null : <div key={i} class="md-part" dangerouslySetInnerHTML={{ __html: html }} />,
      )}
      {/* Parts not rendered yet, as text; each keeps its node until its HTML replaces it. */}
      {pending.map((i) => (
        <div key={`raw${i}`} class="md-part streaming">
          {source!.raw(i)}
        </div>
      ))}
    </div>
  );
}

function Part({ html, text, class: className }: { html: string | undefined; text: string; class: string }) {
  // `undefined` HTML: the text has nothing Markdown acts on; shown as text.
  if (html === undefined) {
    return (
      <div class={className}>
        <p>{text}</p>
      </div>
    );
  }
  // The HTML is DOMPurify's output (see markdown.ts).
  return <div class={className} dangerouslySetInnerHTML={{ __html: html }} />;
}
