/**
 * The live display of a debate. On a terminal: a progress line per round and one line per slot in
 * its colour showing the end of what it is writing, redrawn in place (at most every 50 ms), then the
 * verdict. Elsewhere (a pipe, a file): plain lines, each answer in full when it completes.
 */
import type { Action, DebateEvent, SlotInfo, Verdict } from '../generated/types.gen.js';
import { inert, oneLine, type Paint, slotColour, tail } from '../terminal/terminal.js';
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
}

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
  /** A grounded debate's sources as last reported; printed after the verdict. */
  #grounding: Extract<DebateEvent, { type: 'grounding' }>['grounding'] | undefined;

  constructor(private readonly options: ViewOptions) {}

  event(e: DebateEvent): void {
    const { write, paint } = this.options;
    switch (e.type) {
      case 'session.started':
        for (const s of e.slots) this.#slots.set(s.slot, s);
        this.#rounds = e.roundsRequested;
        write(`${paint('dim', `session ${e.sessionId} · ${e.slots.length} models · ${e.roundsRequested} rounds`)}\n`);
        return;
      case 'round.started':
        this.#settle();
        this.#header = `Round ${e.round}/${this.#rounds} · ${e.kind}`;
        this.#lines = e.slots.map((slot) => ({ slot, state: 'waiting', text: '' }));
        if (this.options.live) this.#draw();
        else write(`\n${paint('bold', this.#header)}\n`);
        return;
      case 'answer.delta': {
        const line = this.#line(e.slot);
        line.state = 'writing';
        line.text += e.delta;
        this.#schedule();
        return;
      }
      case 'answer.completed': {
        const line = this.#line(e.answer.slot);
        line.state = 'done';
        line.text = e.answer.text;
        if (this.options.live) this.#schedule();
        else write(`${this.#label(e.answer.slot)} ${inert(e.answer.text).trim()}\n`);
        return;
      }
      case 'answer.failed': {
        const line = this.#line(e.slot);
        line.state = 'failed';
        line.note = `${e.error.code}: ${e.error.message}`;
        if (this.options.live) this.#schedule();
        else write(`${this.#label(e.slot)} ${paint('red', `failed (${oneLine(line.note)})`)}\n`);
        return;
      }
      case 'round.ended': {
        const answered = this.#lines.filter((l) => l.state === 'done').length;
        this.#header = `Round ${e.round}/${this.#rounds} · ${answered}/${this.#lines.length} answered${e.quorumMet ? '' : ' · quorum not met'}`;
        this.#settle();
        if (!this.options.live) write(`${paint('dim', this.#header)}\n`);
        return;
      }
      case 'consensus':
        this.#settle();
        write(
          `\n${paint('bold', 'Consensus')} · ${e.consensus.agreements.length} agreements, ${e.consensus.disagreements.length} disagreements\n`,
        );
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
    for (const line of this.#lines) {
      const info = this.#slots.get(line.slot);
      const label = `${line.slot} ${oneLine(info?.provider ?? '').padEnd(10)}`;
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
