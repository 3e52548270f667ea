import { intBetween, pick, type Rng } from './seeded-random.js';

/**
 * Draws a string that matches a JSON Schema `pattern` (an ECMA-262 regex). Supports what schemas
 * use in practice — literals, escapes, classes, groups, alternation, quantifiers, anchors — and
 * verifies every draw with `RegExp`, so an unsupported construct yields `undefined`, never a
 * wrong string.
 */
export function sampleRegex(pattern: string, rng: Rng, tries = 8): string | undefined {
  let regex: RegExp;
  let ast: Alt;
  try {
    regex = new RegExp(pattern, 'u');
    ast = new Parser(pattern).parse();
  } catch {
    return undefined;
  }
  for (let i = 0; i < tries; i++) {
    const out = genAlt(ast, rng);
    if (regex.test(out)) return out;
  }
  return undefined;
}

type Range = readonly [number, number];
interface CharSet {
  ranges: Range[];
  negated: boolean;
}
type Atom = { type: 'set'; set: CharSet } | { type: 'group'; alt: Alt } | { type: 'empty' };
interface Term {
  atom: Atom;
  min: number;
  max: number;
}
type Alt = Term[][];

const DIGIT: Range[] = [[48, 57]];
const WORD: Range[] = [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
];
const SPACE: Range[] = [[32, 32]];
/** Characters a negated class or `.` draws from: readable ones first. */
const READABLE = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', ...' -_.,:;!?/()'];
/** How far past its minimum an unbounded quantifier (`*`, `+`, `{n,}`) repeats. */
const UNBOUNDED_EXTRA = 3;

class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Alt {
    const alt = this.alt();
    if (this.i < this.src.length) throw new SyntaxError(`unexpected ${this.src[this.i]}`);
    return alt;
  }

  private alt(): Alt {
    const options: Term[][] = [this.seq()];
    while (this.src[this.i] === '|') {
      this.i++;
      options.push(this.seq());
    }
    return options;
  }

  private seq(): Term[] {
    const terms: Term[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const atom = this.atom();
      const [min, max] = this.quantifier();
      terms.push({ atom, min, max });
    }
    return terms;
  }

  private atom(): Atom {
    const c = this.src[this.i++]!;
    switch (c) {
      case '^':
      case '$':
        return { type: 'empty' };
      case '.':
        return { type: 'set', set: { ranges: [[10, 10]], negated: true } };
      case '[':
        return { type: 'set', set: this.charClass() };
      case '(':
        return this.group();
      case '\\':
        return this.escape(false);
      default:
        return literal(c.codePointAt(0)!);
    }
  }

  private group(): Atom {
    let lookaround = false;
    if (this.src[this.i] === '?') {
      const rest = this.src.slice(this.i + 1);
      if (rest.startsWith(':')) this.i += 2;
      else if (/^(=|!|<=|<!)/.test(rest)) {
        lookaround = true;
        this.i += rest[0] === '<' ? 3 : 2;
      } else if (rest.startsWith('<')) this.i = this.src.indexOf('>', this.i) + 1;
      else throw new SyntaxError('unsupported group');
    }
    const alt = this.alt();
    if (this.src[this.i++] !== ')') throw new SyntaxError('unclosed group');
    // Lookarounds constrain without consuming; the final RegExp check enforces them.
    return lookaround ? { type: 'empty' } : { type: 'group', alt };
  }

  private escape(inClass: boolean): Atom {
    const c = this.src[this.i++];
    if (c === undefined) throw new SyntaxError('trailing backslash');
    const sets: Record<string, CharSet> = {
      d: { ranges: DIGIT, negated: false },
      D: { ranges: DIGIT, negated: true },
      w: { ranges: WORD, negated: false },
      W: { ranges: WORD, negated: true },
      s: { ranges: SPACE, negated: false },
      S: { ranges: [[9, 13], ...SPACE], negated: true },
    };
    const set = sets[c];
    if (set) return { type: 'set', set };
    if (c === 'b' || c === 'B') return inClass ? literal(8) : { type: 'empty' };
    if (/[1-9]/.test(c)) throw new SyntaxError('backreferences are not supported');
    const controls: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, '0': 0 };
    if (c in controls) return literal(controls[c]!);
    if (c === 'x' || c === 'u') {
      const braced = c === 'u' && this.src[this.i] === '{';
      const hex = braced
        ? this.src.slice(this.i + 1, this.src.indexOf('}', this.i))
        : this.src.slice(this.i, this.i + (c === 'x' ? 2 : 4));
      this.i += braced ? hex.length + 2 : hex.length;
      return literal(Number.parseInt(hex, 16));
    }
    if (c === 'p' || c === 'P') throw new SyntaxError('unicode property escapes are not supported');
    return literal(c.codePointAt(0)!);
  }

  private charClass(): CharSet {
    const negated = this.src[this.i] === '^';
    if (negated) this.i++;
    const ranges: Range[] = [];
    while (this.src[this.i] !== ']') {
      if (this.i >= this.src.length) throw new SyntaxError('unclosed class');
      const lo = this.classAtom();
      if (lo.type !== 'set') throw new SyntaxError('bad class');
      const single = !lo.set.negated && lo.set.ranges.length === 1 && lo.set.ranges[0]![0] === lo.set.ranges[0]![1];
      if (single && this.src[this.i] === '-' && this.src[this.i + 1] !== ']' && this.i + 1 < this.src.length) {
        this.i++;
        const hi = this.classAtom();
        if (hi.type !== 'set') throw new SyntaxError('bad range');
        ranges.push([lo.set.ranges[0]![0], hi.set.ranges[0]![0]]);
      } else if (lo.set.negated) {
        // \D, \W, \S inside a class: approximate by the readable characters outside them.
        ranges.push(
          ...READABLE.map((ch) => ch.codePointAt(0)!)
            .filter((cp) => !inRanges(cp, lo.set.ranges))
            .map((cp): Range => [cp, cp]),
        );
      } else ranges.push(...lo.set.ranges);
    }
    this.i++;
    return { ranges, negated };
  }

  private classAtom(): Atom {
    const c = this.src[this.i++]!;
    return c === '\\' ? this.escape(true) : literal(c.codePointAt(0)!);
  }

  private quantifier(): [number, number] {
    const c = this.src[this.i];
    let bounds: [number, number] | undefined;
    if (c === '*') bounds = [0, Number.POSITIVE_INFINITY];
    else if (c === '+') bounds = [1, Number.POSITIVE_INFINITY];
    else if (c === '?') bounds = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return [1, 1];
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
      this.i += m[0].length - 1;
      bounds = [min, max];
    }
    if (!bounds) return [1, 1];
    this.i++;
    if (this.src[this.i] === '?') this.i++;
    return bounds;
  }
}

function literal(cp: number): Atom {
  return { type: 'set', set: { ranges: [[cp, cp]], negated: false } };
}

function inRanges(cp: number, ranges: readonly Range[]): boolean {
  return ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
}

function genAlt(alt: Alt, rng: Rng): string {
  return pick(rng, alt)
    .map((term) => {
      const max = Number.isFinite(term.max) ? term.max : term.min + UNBOUNDED_EXTRA;
      let out = '';
      for (let n = intBetween(rng, term.min, max); n > 0; n--) out += genAtom(term.atom, rng);
      return out;
    })
    .join('');
}

function genAtom(atom: Atom, rng: Rng): string {
  if (atom.type === 'empty') return '';
  if (atom.type === 'group') return genAlt(atom.alt, rng);
  const { ranges, negated } = atom.set;
  if (negated) {
    const allowed = READABLE.filter((ch) => !inRanges(ch.codePointAt(0)!, ranges));
    return allowed.length > 0 ? pick(rng, allowed) : '';
  }
  if (ranges.length === 0) return '';
  // Prefer letters and digits inside wide ranges such as [ -~], so samples stay readable.
  const [lo, hi] = pick(rng, ranges);
  const readable = READABLE.filter((ch) => {
    const cp = ch.codePointAt(0)!;
    return cp >= lo && cp <= hi;
  });
  return readable.length > 0 && hi - lo > 25 ? pick(rng, readable) : String.fromCodePoint(intBetween(rng, lo, hi));
}
