import { useEffect, useState } from 'preact/hooks';
import { renderMarkdown } from '../markdown.js';

/**
 * Long texts are parsed one per task, in order, when the page is free: a reopened session of 25 long answers shows
 * their text at once and turns each into Markdown without a main-thread task long enough to hold up input.
 */
const queue: (() => void)[] = [];
let draining = false;
function whenFree(job: () => void) {
  queue.push(job);
  if (draining) return;
  draining = true;
  const next = () => {
    const run = queue.shift();
    if (!run) {
      draining = false;
      return;
    }
    run();
    setTimeout(next, 0);
  };
  setTimeout(next, 0);
}

const LONG = 2000;

/** Sanitized Markdown for untrusted text (model output, questions). */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const [html, setHtml] = useState<{ text: string; html: string | undefined } | undefined>(() =>
    text.length < LONG ? { text, html: renderMarkdown(text) } : undefined,
  );
  const current = html?.text === text ? html : text.length < LONG ? { text, html: renderMarkdown(text) } : undefined;
  useEffect(() => {
    if (current) return;
    let live = true;
    whenFree(() => live && setHtml({ text, html: renderMarkdown(text) }));
    return () => {
      live = false;
    };
  }, [text, current === undefined]);
  if (!current) return <div class={`md streaming ${className ?? ''}`}>{text}</div>;
  if (current.html === undefined) {
    return (
      <div class={`md ${className ?? ''}`}>
        <p>{text}</p>
      </div>
    );
  }
  // The HTML is DOMPurify's output (see markdown.ts).
  return <div class={`md ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: current.html }} />;
}
