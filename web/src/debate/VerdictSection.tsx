import type { Action, SlotInfo } from '../../../sdk/src/index.js';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { SlotChip, SlotName } from '../components.js';
import { ActionSources } from '../grounding/Sources.js';
import { actionText, CopyButton, verdictText } from './Copy.js';
import { LiveMarkdown } from './LiveMarkdown.js';
import { Markdown } from './Markdown.js';
import type { SessionView } from './model.js';
import { Supporters } from './Supporters.js';

/** The verdict: streamed while it is written, then its summary, answer, actions by priority, dissent and degradation. */
export function VerdictSection({ view, slotInfo }: { view: SessionView; slotInfo: (s: number) => SlotInfo | undefined }) {
  const verdict = view.verdict;
  const synth = verdict?.synthesizer ?? view.synthesizer;
  return (
    <section class="card verdict" aria-labelledby="verdict-h" aria-live="polite" aria-busy={!verdict}>
      <h2 id="verdict-h">
        Verdict {!verdict && <span class="status status-streaming">being written…</span>}
        {verdict && <CopyButton what="verdict" text={() => verdictText(verdict)} />}
      </h2>
      {synth?.reason === 'vote' && (
        <p class="small">
          No model wrote it: the round-1 answers agreed, so the adaptive debate stopped there and this is their vote (in{' '}
          <SlotName slot={synth.slot} info={slotInfo(synth.slot)} />
          ’s words).
        </p>
      )}
      {synth && synth.reason !== 'vote' && (
        <p class="small">
          Synthesized by <SlotName slot={synth.slot} info={slotInfo(synth.slot)} /> ({synth.model}
          {synth.reason === 'fallback' ? `, fallback for slot ${synth.fallbackFrom ?? 1}` : ''}) —{' '}
          {synth.participated ? 'it also debated, so it judged its own answers' : 'it did not take part in the debate'}.
        </p>
      )}
      {!verdict && (view.verdictText.summary || view.verdictText.answer) && (
        <div class="verdict-stream" data-testid="verdict-stream">
          {view.verdictText.summary && <LiveMarkdown text={view.verdictText.summary} class="summary" />}
          {view.verdictText.answer && <LiveMarkdown text={view.verdictText.answer} />}
        </div>
      )}
      {verdict?.format === 'unstructured' && verdict.rawText && <Markdown text={verdict.rawText} />}
      {verdict?.summary && <Markdown text={verdict.summary} class="summary" />}
      {verdict?.answer && <Markdown text={verdict.answer} />}
      {verdict?.confidence !== undefined && <p class="small">Confidence: {Math.round(verdict.confidence * 100)}%</p>}
      {verdict?.actions && (
        <div class="actions">
          {(['P0', 'P1', 'P2'] as const).map((p) => (
            <div key={p} class={`priority priority-${p}`}>
              <h3>
                <span class="prio">{p}</span> {p === 'P0' ? 'now' : p === 'P1' ? 'next' : 'later'}
              </h3>
              {verdict.actions![p].length === 0 ? (
                <p class="muted small">None.</p>
              ) : (
                <ul>
                  {verdict.actions![p].map((a: Action, i: number) => (
                    <li key={i}>
                      <strong>
                        <Markdown text={a.title} class="inline" />
                      </strong>
                      <Markdown text={a.rationale} class="small" />
                      <Supporters slots={a.supportingSlots} rounds={a.supportingRounds} slotInfo={slotInfo} />
                      <ActionSources action={a} grounding={view.grounding} />{' '}
                      <CopyButton what={`action ${p}.${i + 1}`} text={() => actionText(a)} />
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ))}
        </div>
      )}
      {verdict && verdict.dissent.length > 0 && (
        <div>
          <h3>Dissent</h3>
          <ul>
            {verdict.dissent.map((d, i) => (
              <li key={i}>
                <Supporters slots={d.slots} slotInfo={slotInfo} /> <Markdown text={d.text} class="inline" />
              </li>
            ))}
          </ul>
        </div>
      )}
      {verdict?.degradation.degraded && (
        <div class="degraded">
          <h3>Degraded</h3>
          <ul>
            {verdict.degradation.reasons.map((r, i) => (
              <li key={i}>
                <SlotChip slot={r.slot} info={slotInfo(r.slot)} /> {r.round ? `round ${r.round}` : 'synthesis'}: {r.code} —{' '}
                {visibleControls(r.message)}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
