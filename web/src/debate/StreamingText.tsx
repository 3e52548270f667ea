import { visibleControls } from '../../../sdk/src/terminal/terminal.js';

/**
 * Text still being written, shown as it is (white-space: pre-wrap), in blocks of ~1000–2000 characters, cut after a
 * newline, else after a space, else hard at 2000 (a 5 MB answer with no line break is still many small blocks). A cut
 * depends only on the text before it, and text only grows at its end, so every block but the last keeps its exact
 * string: Preact leaves those nodes alone and the browser lays out only the last block when a delta arrives.
 */
const BLOCK = 1000;

export function blocksOf(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  while (text.length - start > BLOCK) {
    const window = text.slice(start + BLOCK, start + 2 * BLOCK);
    let cut = window.indexOf('\n');
    if (cut === -1) {
      // No line break yet: wait until a whole window is there before cutting at a space (or anywhere), so the cut
      // does not move as the text grows.
      if (window.length < BLOCK) break;
      cut = window.lastIndexOf(' ');
      if (cut === -1) cut = BLOCK - 1;
    }
    const end = start + BLOCK + cut + 1;
    blocks.push(text.slice(start, end));
    start = end;
  }
  blocks.push(text.slice(start));
  return blocks;
}

/** Plain text, controls and bidi overrides shown as visible marks (see `visibleControls`). */
export function StreamingText({ text, class: className }: { text: string; class?: string }) {
  const blocks = blocksOf(visibleControls(text));
  if (blocks.length === 1) return <div class={`streaming ${className ?? ''}`}>{blocks[0]}</div>;
  return (
    <div class={`streaming ${className ?? ''}`}>
      {blocks.map((block, i) => (
        <div key={i} class="stream-block">
          {block}
        </div>
      ))}
    </div>
  );
}
