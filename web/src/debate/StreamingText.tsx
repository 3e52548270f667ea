/**
 * Text still being written, shown as it is (white-space: pre-wrap), in blocks cut after a newline every ~1000
 * characters. Text only grows at its end, so every block but the last keeps its exact string: Preact leaves those
 * nodes alone and the browser lays out only the last block when a delta arrives, not the whole answer again (which,
 * for five long answers at once, made each frame's layout grow with the text).
 */
const BLOCK = 1000;

export function blocksOf(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  while (text.length - start > BLOCK) {
    const cut = text.indexOf('\n', start + BLOCK);
    if (cut === -1) break;
    blocks.push(text.slice(start, cut + 1));
    start = cut + 1;
  }
  blocks.push(text.slice(start));
  return blocks;
}

export function StreamingText({ text, class: className }: { text: string; class?: string }) {
  const blocks = blocksOf(text);
  if (blocks.length === 1) return <div class={`streaming ${className ?? ''}`}>{text}</div>;
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
