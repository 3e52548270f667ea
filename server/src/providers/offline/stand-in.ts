/**
 * What the offline model says. It is a local stand-in, not a model, so it must never read like
 * analysis: every reply says plainly what it is and shows the debate's mechanics instead — which
 * round, which role, what it was given to read — and how to make the slot live. It reads those
 * from the prompt the engine sent (the wording in `prompts.ts`).
 */

/** What a debate prompt asked of the model, as far as the stand-in needs to know. */
export interface PromptFacts {
  slot?: number;
  provider?: string;
  role: 'independent' | 'critique' | 'final' | 'verdict' | 'other';
  round?: number;
  question: string;
  /** The slots whose answers the prompt quoted, in order. */
  saw: number[];
  /** The labels of the anonymous answers the prompt quoted ("Response A"), in order. */
  sawLabels?: string[];
  /** The rounds of a verdict's transcript. */
  rounds: number[];
  /** The earlier exchanges a follow-up question carries, if any. */
  thread: number;
  /** The prompt asks for a last line saying whether the position changed. */
  asksPosition: boolean;
  /** The numbered wiki sources a grounded debate's prompt carries (`grounding/run.ts` words them). */
  sources: { n: number; title: string; text: string }[];
}

/** `[n] "title" (revision r)`, the title a JSON string, then the page's text fenced. */
const SOURCE = /^\[(\d+)\] ("(?:[^"\\]|\\.)*") \(revision \d+\)\n(`{3,})text\n([\s\S]*?)\n\3$/gm;

export function readPrompt(system: string, user: string): PromptFacts {
  const me = /You are slot (\d+) \(([^)]+)\)/.exec(system);
  const round = /This is round (\d+)(, the final round)?/.exec(user);
  const question =
    /Question:\n([\s\S]*?)(?:\n\n(?:Answer it on your own|This is round|Transcript:|Earlier in this thread)|$)/.exec(user);
  const role: PromptFacts['role'] = user.startsWith('You are writing the verdict')
    ? 'verdict'
    : round?.[2]
      ? 'final'
      : round
        ? 'critique'
        : /Answer it on your own/.test(user)
          ? 'independent'
          : 'other';
  const saw = [...new Set([...user.matchAll(/^Slot (\d+) \([^)]*\) said:/gm)].map((m) => Number(m[1])))];
  const rounds = [...new Set([...user.matchAll(/^## Round (\d+)/gm)].map((m) => Number(m[1])))];
  const labels = [...new Set([...user.matchAll(/^Response ([A-E]) said:/gm)].map((m) => m[1]!))];
  return {
    ...(labels.length > 0 && { sawLabels: labels }),
    ...(me && { slot: Number(me[1]), provider: me[2]! }),
    role,
    ...(round ? { round: Number(round[1]) } : role === 'independent' && { round: 1 }),
    question: (question?.[1] ?? user).trim(),
    saw,
    rounds,
    thread: [...user.matchAll(/^### Earlier question \d+/gm)].length,
    asksPosition: user.includes('"POSITION: unchanged"'),
    sources: [...user.matchAll(SOURCE)].map((m) => ({ n: Number(m[1]), title: JSON.parse(m[2]!) as string, text: m[4]! })),
  };
}

function list(numbers: readonly number[]): string {
  if (numbers.length <= 1) return numbers.join('');
  return `${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}

function short(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function who(f: PromptFacts): string {
  if (f.slot !== undefined) return `slot ${f.slot} (${f.provider ?? 'unknown provider'})`;
  return f.provider !== undefined ? f.provider : 'this slot';
}

const HOW_TO_GO_LIVE =
  'To hear a real model here, give the slot an API key or an OpenAI-compatible server (see the start-up banner).';

/** What it read: the question, and whose answers. */
function seen(f: PromptFacts): string {
  const others =
    f.saw.length > 0
      ? `the latest answers of slots ${list(f.saw)}`
      : f.sawLabels?.length
        ? `the latest answers of responses ${f.sawLabels.slice(0, -1).join(', ')}${f.sawLabels.length > 1 ? ' and ' : ''}${f.sawLabels.at(-1)}, anonymous`
        : 'no other answers';
  const thread =
    f.thread > 0 ? `, the ${f.thread === 1 ? 'earlier exchange' : `${f.thread} earlier exchanges`} of this thread` : '';
  return `I was given the question "${short(f.question)}"${thread} and ${others}.`;
}

/**
 * With sources, the stand-in cites one real retrieved page, chosen by slot so the panel's citations
 * differ, and quotes its first words exactly: the citation check then has something true to verify.
 */
export function standInCitation(f: PromptFacts): string {
  if (f.sources.length === 0) return '';
  const source = f.sources[((f.slot ?? 1) - 1) % f.sources.length]!;
  const words = (source.text.split('\n').find((line) => /\p{L}{2}/u.test(line)) ?? '')
    // Up to the first quote mark: the quotation must be the page's words exactly.
    .split(/["“”]/)[0]!
    .split(/\s+/)
    .filter(Boolean);
  const quote = words.slice(0, 6).join(' ');
  return quote.length >= 4
    ? ` The wiki was read: source [${source.n}] "${short(source.title)}" begins "${quote}" [${source.n}].`
    : ` The wiki was read: see source [${source.n}].`;
}

/** The stand-in's reply to a plain-text prompt. */
export function standInText(f: PromptFacts): string {
  const head = `[Offline stand-in for ${who(f)}: no model was asked, and this is not an answer.]`;
  switch (f.role) {
    case 'independent':
      return [
        head,
        `Round 1, independent: ${seen(f).replace(' and no other answers', ', nothing else')}${standInCitation(f)}`,
        'Here a live model would answer on its own, without seeing the others.',
        HOW_TO_GO_LIVE,
      ].join(' ');
    case 'critique':
      return (
        [
          head,
          `Round ${f.round}, critique: ${seen(f)}${standInCitation(f)}`,
          'Here a live model would say where those answers are right or wrong and refine its own.',
          'A stand-in has no view to defend, so nothing changes.',
          HOW_TO_GO_LIVE,
        ].join(' ') + (f.asksPosition ? '\nPOSITION: unchanged' : '')
      );
    default:
      return [head, seen(f), HOW_TO_GO_LIVE].join(' ');
  }
}

/** The stand-in's final-round JSON: a position that says what it is, no claimed agreements. */
export function standInFinal(f: PromptFacts) {
  return {
    position: [
      `[Offline stand-in for ${who(f)}: no position.]`,
      `Round ${f.round ?? '?'}, final: ${seen(f)}${standInCitation(f)}`,
      'Here a live model would give its final position and report where the panel agrees.',
    ].join(' '),
    changed: false,
    changeReason: 'An offline stand-in holds no position to change.',
    agreements: [],
    disagreements: [],
  };
}

/** The stand-in synthesizer's JSON: no verdict, no actions, only what ran. */
export function standInVerdict(f: PromptFacts) {
  const rounds = f.rounds.length > 0 ? `round${f.rounds.length > 1 ? 's' : ''} ${list(f.rounds)}` : 'no rounds';
  return {
    summary: `No verdict: the synthesizer, ${who(f)}, is an offline stand-in and cannot weigh the debate.`,
    answer: [
      `What ran: ${rounds}, with answers from slots ${list(f.saw) || 'none'}, for "${short(f.question)}".${standInCitation(f)}`,
      'A live synthesizer would write the verdict here, with actions grouped P0/P1/P2.',
      HOW_TO_GO_LIVE,
    ].join(' '),
    actions: { P0: [], P1: [], P2: [] },
    dissent: [],
    confidence: 0,
  };
}
