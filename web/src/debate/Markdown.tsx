import { useMemo } from 'preact/hooks';
import { renderMarkdown } from '../markdown.js';

/** Sanitized Markdown for untrusted text (model output, questions). */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // The HTML is DOMPurify's output (see markdown.ts).
  return <div class={`md ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
