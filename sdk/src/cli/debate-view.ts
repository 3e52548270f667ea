/**
 * The live display of a debate. On a terminal: a progress line per round and one line per slot in
 * its colour showing the end of what it is writing, redrawn in place (at most every 50 ms), then the
 * verdict. Elsewhere (a pipe, a file): plain lines, each answer in full when it completes. With `full`
 * (both places): every answer in full as it is written, one after another in the round's slot order (the
 * first streams live, the others are held until their turn, so five models writing at once read as five
 * answers).
 */
import type { Action, Consensus, DebateEvent, SlotInfo, Verdict } from '../generated/types.gen.js';
import { inert, oneLine, type Paint, slotColour, tail } from '../terminal/terminal.js';
import { renderIntegrity } from './integrity-view.js';
import { renderSources } from './sources-view.js';

type SlotState = 'waiting' | 'writing' | 'done' | 'failed';

interface Line {
  slot: number;
  state: SlotState;
  text: string;
  note?: string;
}

interface ViewOptions {
  write(text: string): void;
  paint: Paint;
  /** Redraw in place (a terminal); otherwise print plain lines. */
  live: boolean;
  columns: number;
  /** Every answer in full as it is written, instead of the compact view. */
  full?: boolean;
}

/** The widest a provider's name is drawn in the live block: a long one is cut, so the text column still fits. */
const NAME_SHARE = 4;

const MARK: Record<SlotState, string> = { waiting: '·', writing: '●', done: '✓', failed: '✗' };

export class DebateView {
  #slots = new Map<number, SlotInfo>();
  #rounds = 0;
  #lines: Line[] = [];
  #header = '';
  #drawn = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The verdict text streamed so far: which attempt and field it is in, so each starts on its own line. */
  #verdictAt: string | undefined;
  /** `full`: the index in the round's lines whose answer is being printed, and how much of it is out (-1: not started). */
  #turn = 0;
  #written = -1;
  /** A grounded debate's sources as last reported; printed after the verdict. */
  #grounding: Extract<DebateEvent, { type: 'grounding' }>['grounding'] | undefined;

  constructor(private readonly options: ViewOptions) {
    // Full answers are text that scrolls, never a block redrawn in place.
    if (options.full) this.options = { ...options, live: false };
  }

  event(e: DebateEvent): void {
    const { write, paint } = this.options;
    switch (e.type) {
      case 'session.started':
        for (const s of e.slots) this.#slots.set(s.slot, s);
        this.#rounds = e.roundsRequested;
        write(`${paint('bold', oneLine(e.question).trim())}\n`);
        write(`${paint('dim', `session ${e.sessionId} · ${e.slots.length} models · ${e.roundsRequested} rounds`)}\n`);
        return;
      case 'round.started':
        this.#settle();
        this.#header = `Round ${e.round}/${this.#rounds} · ${e.kind}`;
        this.#lines = e.slots.map((slot) => ({ slot, state: 'waiting', text: '' }));
        this.#turn = 0;
        this.#written = -1;
        if (this.options.live) this.#draw();
        else write(`\n${paint('bold', this.#header)}\n`);
        return;
      case 'answer.delta': {
        const line = this.#line(e.slot);
        line.state = 'writing';
        line.text += e.delta;
        if (this.options.full) this.#printFull();
        else this.#schedule();
        return;
      }
      case 'answer.completed': {
        const line = this.#line(e.answer.slot);
        line.state = 'done';
        line.text = e.answer.text;
        if (this.options.full) this.#printFull();
        else if (this.options.live) this.#schedule();
        else write(`${this.#label(e.answer.slot)} ${inert(e.answer.text).trim()}\n`);
        return;
      }
      case 'answer.failed': {
        const line = this.#line(e.slot);
        line.state = 'failed';
        line.note = `${e.error.code}: ${e.error.message}`;
        if (this.options.full) this.#printFull();
        else if (this.options.live) this.#schedule();
        else write(`${this.#label(e.slot)} ${paint('red', `failed (${oneLine(line.note)})`)}\n`);
        return;
      }
      case 'round.ended': {
        const answered = this.#lines.filter((l) => l.state === 'done').length;
        this.#header = `Round ${e.round}/${this.#rounds} · ${answered}/${this.#lines.length} answered${e.quorumMet ? '' : ' · quorum not met'}`;
        if (this.options.full) this.#printFull(true);
        this.#settle();
        if (!this.options.live) write(`${this.options.full ? '\n' : ''}${paint('dim', this.#header)}\n`);
        return;
      }
      case 'consensus':
        this.#settle();
        write(renderConsensus(e.consensus, paint, (slot) => this.#name(slot)));
        return;
      case 'synthesis.started':
        this.#settle();
        write(`\n${paint('bold', 'Verdict')} ${paint('dim', `written by ${this.#name(e.synthesizer.slot)}…`)}\n`);
        return;
      case 'verdict.delta': {
        // The summary and answer as the synthesizer writes them; a repair attempt starts them again.
        const at = `${e.attempt}:${e.field}`;
        if (at !== this.#verdictAt) {
          const again = e.attempt > 1 && this.#verdictAt?.startsWith(`${e.attempt - 1}:`) ? paint('yellow', '(rewritten) ') : '';
          write(`${this.#verdictAt ? '\n' : ''}${again}${paint('dim', `${e.field}: `)}`);
          this.#verdictAt = at;
        }
        write(e.field === 'summary' ? paint('bold', inert(e.delta)) : inert(e.delta));
        return;
      }
      case 'verdict':
        if (this.#verdictAt) write('\n');
        write(renderVerdict(e.verdict, paint, (slot) => this.#name(slot), this.#verdictAt !== undefined));
        return;
      case 'grounding':
        this.#grounding = e.grounding;
        return;
      case 'integrity':
        this.#settle();
        write(renderIntegrity(e.integrity, paint, (slot) => this.#name(slot)));
        return;
      case 'session.ended':
        this.#settle();
        if (this.#grounding) write(renderSources(this.#grounding, paint));
        write(
          `\n${paint(e.status === 'completed' ? 'green' : 'yellow', e.status)} · ${e.usage.totalTokens} tokens${
            e.cost.priced ? ` · $${e.cost.usd.toFixed(4)}` : ''
          }${e.error ? ` · ${oneLine(e.error)}` : ''}\n`,
        );
        return;
    }
  }

  /** Leaves the live block as it last was, e.g. on Ctrl-C. */
  close(): void {
    this.#settle();
  }

  /**
   * `full`: prints what is printable now. The slot whose turn it is gets its new text; once its answer is done (or
   * failed), the next slot in the round's order follows with what it has written so far. `all` (the round ended)
   * prints every slot left, whatever its state.
   */
  #printFull(all = false): void {
    const { write, paint } = this.options;
    for (; this.#turn < this.#lines.length; this.#turn++, this.#written = -1) {
      const line = this.#lines[this.#turn]!;
      if (this.#written < 0) {
        write(`\n${paint('bold', this.#label(line.slot))}\n`);
        this.#written = 0;
      }
      if (line.text.length > this.#written) {
        write(inert(line.text.slice(this.#written)));
        this.#written = line.text.length;
      }
      const open = this.#written > 0 && !line.text.endsWith('\n') ? '\n' : '';
      if (line.state === 'done') write(open);
      else if (line.state === 'failed') write(`${open}${paint('red', `failed (${oneLine(line.note ?? '')})`)}\n`);
      else if (all) write(`${open}${paint('yellow', '(unfinished)')}\n`);
      else return;
    }
  }

  #line(slot: number): Line {
    let line = this.#lines.find((l) => l.slot === slot);
    if (!line) {
      line = { slot, state: 'waiting', text: '' };
      this.#lines.push(line);
    }
    return line;
  }

  #name(slot: number): string {
    const info = this.#slots.get(slot);
    return this.options.paint(slotColour(slot), `${slot} ${info ? oneLine(info.provider) : ''}`.trim());
  }

  #label(slot: number): string {
    return `${this.#name(slot)}${this.options.paint('dim', ':')}`;
  }

  #schedule(): void {
    if (!this.options.live || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#draw();
    }, 50);
  }

  /** Draws the block once more and leaves it on screen; the next round starts below it. */
  #settle(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.options.live && this.#lines.length > 0) {
      this.#draw();
      this.#drawn = 0;
    }
    this.#lines = [];
  }

  #draw(): void {
    const { paint, columns } = this.options;
    const rows = [paint('bold', this.#header)];
    const names = this.#lines.map((l) => oneLine(this.#slots.get(l.slot)?.provider ?? ''));
    // As wide as the longest name, up to a quarter of the line: columns hold for any provider name.
    const width = Math.min(Math.max(0, ...names.map((n) => n.length)), Math.max(10, Math.floor(columns / NAME_SHARE)));
    const digits = Math.max(...this.#lines.map((l) => String(l.slot).length));
    for (const [i, line] of this.#lines.entries()) {
      const label = `${String(line.slot).padStart(digits)} ${cut(names[i]!, width).padEnd(width)}`;
      const mark =
        line.state === 'failed'
          ? paint('red', MARK.failed)
          : line.state === 'done'
            ? paint('green', MARK.done)
            : MARK[line.state];
      const room = Math.max(10, columns - label.length - 4);
      const body = line.state === 'failed' ? paint('red', tail(line.note ?? '', room)) : tail(line.text, room);
      rows.push(`${paint(slotColour(line.slot), label)} ${mark} ${body}`);
    }
    // Up to the first line of the block, then each line cleared and rewritten.
    const up = this.#drawn > 0 ? `\u001b[${this.#drawn}F` : '';
    this.options.write(`${up}${rows.map((r) => `\u001b[2K${r}`).join('\n')}\n`);
    this.#drawn = rows.length;
  }
}

/** `text` cut to `width` characters, with an ellipsis when it was longer. */
const cut = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`);

/** The consensus as statements with the slots that hold each, and each disagreement's sides. */
export function renderConsensus(consensus: Consensus, paint: Paint, name: (slot: number) => string = String): string {
  const out = ['', `${paint('bold', 'Consensus')} ${paint('dim', `(round ${consensus.round})`)}`];
  if (consensus.agreements.length === 0) out.push(paint('dim', '  no statement all hold'));
  for (const a of consensus.agreements) {
    out.push(
      `  ${paint('green', '✓')} ${oneLine(a.statement)}${a.slots.length ? paint('dim', ` — ${a.slots.map(name).join(', ')}`) : ''}`,
    );
  }
  for (const d of consensus.disagreements) {
    out.push(`  ${paint('yellow', '≠')} ${oneLine(d.topic)}`);
    for (const p of d.positions) out.push(`      ${p.slots.map(name).join(', ')}: ${oneLine(p.position)}`);
  }
  return `${out.join('\n')}\n`;
}

/** A verdict as text: summary, answer, then actions grouped P0/P1/P2 with the slots that support each. */
export function renderVerdict(
  verdict: Verdict,
  paint: Paint,
  name: (slot: number) => string = String,
  /** The summary and answer were already streamed: print the rest only. */
  streamed = false,
): string {
  const out: string[] = [];
  if (verdict.format === 'unstructured') {
    out.push(paint('yellow', '(unstructured verdict)'), inert(verdict.rawText ?? '').trim());
  } else {
    if (verdict.summary && !streamed) out.push(paint('bold', inert(verdict.summary).trim()));
    if (verdict.answer && !streamed) out.push('', inert(verdict.answer).trim());
    for (const priority of ['P0', 'P1', 'P2'] as const) {
      const actions: Action[] = verdict.actions?.[priority] ?? [];
      if (actions.length === 0) continue;
      const colour = priority === 'P0' ? 'red' : priority === 'P1' ? 'yellow' : 'blue';
      out.push('', paint(colour, paint('bold', priority)));
      for (const a of actions) {
        const supporters = a.supportingSlots.map(name).join(', ');
        out.push(`  • ${oneLine(a.title)}${supporters ? paint('dim', ` — supported by ${supporters}`) : ''}`);
        if (a.rationale) out.push(`    ${paint('dim', oneLine(a.rationale))}`);
      }
    }
  }
  for (const d of verdict.dissent)
    out.push('', `${paint('yellow', 'Dissent')} (${d.slots.map(name).join(', ')}): ${oneLine(d.text)}`);
  if (verdict.confidence !== undefined) out.push('', paint('dim', `confidence ${Math.round(verdict.confidence * 100)}%`));
  if (verdict.degradation.degraded) {
    out.push(paint('yellow', `degraded: missing ${verdict.degradation.missingSlots.join(', ') || 'none'}`));
  }
  return `${out.join('\n')}\n`;
}
