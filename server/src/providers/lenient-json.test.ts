import { describe, expect, it } from 'vitest';
import { embeddedJson } from './lenient-json.js';

const ANSWER = { position: 'Ship the smaller change {first}.', changed: false, agreements: [{ statement: 'a "b" ]c' }] };
const JSON_TEXT = JSON.stringify(ANSWER, null, 2);

describe('embeddedJson', () => {
  it.each([
    ['a ```json fence', `\`\`\`json\n${JSON_TEXT}\n\`\`\``],
    ['a bare fence after a sentence', `Here is my final position:\n\n\`\`\`\n${JSON_TEXT}\n\`\`\`\nThanks.`],
    ['a sentence before it', `Sure! Here is the JSON you asked for: ${JSON_TEXT}`],
    ['trailing text', `${JSON_TEXT}\n\nNote: I weighed Response B most.`],
    ['both, with braces in the prose', `My answer {in brief}: ${JSON_TEXT} (end {of} answer)`],
    ['a fence whose first line is not JSON, then the object', `\`\`\`text\nnot json\n\`\`\`\n${JSON_TEXT}`],
  ])('finds the object in %s', (_, text) => {
    expect(JSON.parse(embeddedJson(text)!)).toEqual(ANSWER);
  });

  it('finds nothing where no JSON parses', () => {
    expect(embeddedJson('I think we should ship the smaller change.')).toBeUndefined();
    expect(embeddedJson('{"position": "cut short", "changed": ')).toBeUndefined();
    expect(embeddedJson('{"a": 1]')).toBeUndefined();
  });

  it('reads brackets inside strings, escaped quotes included, as text', () => {
    const text = `x {"s": "a \\"}\\" [b"} y`;
    expect(JSON.parse(embeddedJson(text)!)).toEqual({ s: 'a "}" [b' });
  });
});

describe('embeddedJson and broken answers', () => {
  it('does not take an object from inside an answer that closes but does not parse', () => {
    expect(embeddedJson('{"position": "p", "agreements": [{"statement": "s"}], "changed": maybe}')).toBeUndefined();
  });
});
