/**
 * The JSON inside a structured answer that is not only JSON: real models wrap it in a Markdown code
 * fence, open with a sentence ("Here is my answer:") or add a note after it. Only the strict parse
 * failing brings this here; what it finds is validated against the schema like any answer.
 */

/** The first JSON object or array in `text` that parses, fenced or embedded; `undefined` when there is none. */
export function embeddedJson(text: string): string | undefined {
  // A fenced block (```json … ``` or a bare ```), the form most chat models use.
  for (const m of text.matchAll(/```[\w-]*[^\S\n]*\n?([\s\S]*?)```/g)) {
    const inner = m[1]!.trim();
    if (parses(inner)) return inner;
  }
  // Else the first balanced {…} or […] that parses, strings read as strings. One that closes but does not parse is
  // skipped whole: an object inside it is a fragment of a broken answer, not the answer.
  for (let from = 0; ; ) {
    const start = text.slice(from).search(/[{[]/);
    if (start < 0) return undefined;
    const at = from + start;
    const end = closing(text, at);
    if (end !== undefined && parses(text.slice(at, end + 1))) return text.slice(at, end + 1);
    from = end === undefined ? at + 1 : end + 1;
  }
}

function parses(candidate: string): boolean {
  try {
    JSON.parse(candidate);
    return true;
  } catch {
    return false;
  }
}

/** The index of the bracket that closes the one at `start`, or `undefined` when it never closes. */
function closing(text: string, start: number): number | undefined {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return undefined;
      if (stack.length === 0) return i;
    }
  }
  return undefined;
}
