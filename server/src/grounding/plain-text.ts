/**
 * Wikitext reduced to plain text, for wikis without TextExtracts: templates, references, files,
 * categories, tables and markup go; link labels and headings stay. Approximate by design: it is what
 * the models read, and what their quotations are checked against, so it only has to be the same text
 * both times.
 */

/** Removes `open … close` spans, nested ones included. */
function withoutNested(text: string, open: string, close: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < text.length; ) {
    if (text.startsWith(open, i)) {
      depth++;
      i += open.length;
    } else if (depth > 0 && text.startsWith(close, i)) {
      depth--;
      i += close.length;
    } else {
      if (depth === 0) out += text[i];
      i++;
    }
  }
  return out;
}

export function wikitextToPlain(wikitext: string): string {
  let t = wikitext.replace(/<!--[\s\S]*?-->/g, '');
  t = t.replace(/<ref[^>]*\/>/gi, '').replace(/<ref[^>]*>[\s\S]*?<\/ref>/gi, '');
  t = withoutNested(t, '{{', '}}');
  t = withoutNested(t, '{|', '|}');
  // Files and categories carry no prose; interwiki-style namespaces do not either.
  t = t.replace(/\[\[\s*(?:File|Image|Category|Datei|Fichier|Kategorie)\s*:[^\]]*\]\]/gi, '');
  t = t.replace(/\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2').replace(/\[\[([^\]]*)\]\]/g, '$1');
  t = t.replace(/\[(?:https?:)?\/\/\S+\s+([^\]]+)\]/g, '$1').replace(/\[(?:https?:)?\/\/\S+\]/g, '');
  t = t.replace(/'{2,}/g, '');
  t = t.replace(/^\s*(=+)\s*(.*?)\s*\1\s*$/gm, '$2');
  t = t.replace(/^[*#:;]+\s*/gm, '');
  t = t.replace(/<\/?[a-z][^>]*>/gi, '');
  t = t.replace(/__[A-Z]+__/g, '');
  return t
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Page text as every store keeps it, so the text stored, hashed and given to the models is one: no NUL (PostgreSQL's
 * `text` refuses it) and no lone surrogate (UTF-8 cannot hold one; it would come back as U+FFFD).
 */
export function storableText(text: string): string {
  return text.replaceAll('\0', '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** At most `bytes` bytes of UTF-8, cut at a character boundary (never half a character). */
export function truncateBytes(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= bytes) return text;
  let end = bytes;
  // A continuation byte (10xxxxxx) means the cut falls inside a character: step back to its start.
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString('utf8');
}
