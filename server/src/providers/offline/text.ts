import { intBetween, pick, type Rng, shuffled } from './seeded-random.js';

/**
 * Splits text into word-sized tokens, each carrying its leading whitespace, so that the tokens
 * concatenate back to the text. The offline model counts usage and paces its stream with them;
 * real BPE tokenizers give similar counts for English prose (about 1.3 tokens a word).
 */
export function tokenize(text: string): string[] {
  return text.match(/\s*[\p{L}\p{N}_']+|\s*[^\s\p{L}\p{N}_']|\s+/gu) ?? [];
}

const STOPWORDS = new Set(
  `about above after again against also among another because been before being below between both cannot could
  does doing down during each either every from further have having here into itself just more most much must need
  only other ought over same shall should some such than that their them then there these they this those through
  under until upon very want were what when where whether which while whom whose will with within without would your
  yours answer question please model models slot round rounds explain tell give given make using used like know think`.split(
    /\s+/,
  ),
);

/** The distinctive words of a question, in order of first appearance, lowercase, at most `max`. */
export function keywords(text: string, max = 6): string[] {
  const seen = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}][\p{L}\p{N}'-]{3,}/gu)) {
    const word = match[0].replace(/['-]+$/, '');
    if (word.length >= 4 && !STOPWORDS.has(word)) seen.add(word);
    if (seen.size >= max) break;
  }
  return [...seen];
}

const OPENERS = [
  'Looking at {a}, the answer turns mostly on {b}.',
  'The short answer: {a} matters, but {b} decides how much.',
  'Start from {a}; most of the trade-offs follow from how {b} behaves.',
  'There are two sides to {a}, and {b} is where they meet.',
  'Framed plainly, this is a question about {a} under the constraint of {b}.',
];
const BODY = [
  'The strongest case for {a} is that it keeps {b} easy to reason about.',
  'A common mistake is to treat {a} as independent of {b}; in practice they interact.',
  'If {a} is the priority, begin with the smallest change that tests it.',
  'The evidence on {b} is mixed, so weigh it against cost and reversibility.',
  'An alternative view holds that {c} makes {a} less important than it first appears.',
  'Measure {a} before and after any change, so the decision can be revisited.',
  'Where {b} is uncertain, prefer options that can be undone cheaply.',
  'Experience suggests {c} is often underestimated until it fails.',
  'A useful test: would the choice still hold if {b} doubled?',
  'The risk with {a} is less the idea than its execution.',
];
const CLOSERS = [
  'On balance, prioritise {a} now and revisit {b} once there is data.',
  'Recommendation: act on {a} first; treat {c} as a follow-up.',
  'In short, {a} deserves attention, {b} deserves caution.',
  'My conclusion: move on {a}, keep {b} under review, and watch {c}.',
];

/** Fills `{a}`, `{b}`, `{c}` with keywords, cycling through them. */
function fill(template: string, words: readonly string[], offset: number): string {
  const at = (i: number) => words[(offset + i) % words.length] ?? 'the question';
  return template.replace('{a}', at(0)).replace('{b}', at(1)).replace('{c}', at(2));
}

/** One sentence about the question's keywords, for a JSON string field. */
export function sentence(rng: Rng, words: readonly string[]): string {
  return fill(pick(rng, BODY), words, intBetween(rng, 0, 5));
}

/** A short title-like phrase built from keywords, e.g. "Review caching and latency". */
export function phrase(rng: Rng, words: readonly string[]): string {
  const verbs = ['Review', 'Prioritise', 'Measure', 'Clarify', 'Test', 'Reconsider', 'Document'];
  const first = words.length > 0 ? pick(rng, words) : 'the plan';
  const rest = words.filter((w) => w !== first);
  return rest.length > 0 ? `${pick(rng, verbs)} ${first} and ${pick(rng, rest)}` : `${pick(rng, verbs)} ${first}`;
}

/** A plausible multi-sentence answer about the question, entirely determined by `rng` and `words`. */
export function prose(rng: Rng, words: readonly string[]): string {
  const offset = intBetween(rng, 0, 5);
  const body = shuffled(rng, BODY).slice(0, intBetween(rng, 3, 6));
  const sentences = [pick(rng, OPENERS), ...body, pick(rng, CLOSERS)].map((t, i) => fill(t, words, offset + i));
  return sentences.join(' ');
}
