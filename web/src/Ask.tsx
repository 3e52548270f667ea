import { useEffect, useState } from 'preact/hooks';
import type { EstimateOptions } from '../../sdk/src/index.js';
import { AskEstimate } from './AskEstimate.js';
import { ErrorNote, OfflineMark, SlotName } from './components.js';
import { LazySessionPanel } from './debate/lazy.js';
import { DEFAULT_ROUNDS } from './debate/rounds.js';
import { type AskInput, type Run, startRun } from './debate/runner.js';
import { liveRuns } from './debate/runs.js';
import { WikiPicker } from './grounding/WikiPicker.js';
import { PanelRanking } from './PanelRanking.js';
import { replaceHash, sessionHref } from './router.js';
import { useProviders } from './use-providers.js';

type Mode = Exclude<AskInput['mode'], 'follow-up'>;

/** The question form: the simple case is a question and a button; everything else sits under "Options". */
export function Ask() {
  const providers = useProviders();
  const [question, setQuestion] = useState('');
  const [mode, setMode] = useState<Mode>('deep');
  const [rounds, setRounds] = useState(DEFAULT_ROUNDS);
  const [provider, setProvider] = useState('');
  const [quorum, setQuorum] = useState('');
  const [maxTokens, setMaxTokens] = useState('');
  const [maxCostUsd, setMaxCostUsd] = useState('');
  const [earlyStop, setEarlyStop] = useState(false);
  const [wiki, setWiki] = useState('');
  const [slots, setSlots] = useState<number[] | undefined>();
  const [synthesizer, setSynthesizer] = useState('');
  const [anonymous, setAnonymous] = useState(true);
  const [ranking, setRanking] = useState(false);
  const [models, setModels] = useState<Record<number, string>>({});
  const [strategy, setStrategy] = useState<'debate' | 'adaptive'>('debate');
  const [agreement, setAgreement] = useState('');
  const [run, setRun] = useState<Run>();
  const [error, setError] = useState<string>();
  useEffect(() => LazySessionPanel.preload(), []);

  const chosenModels = Object.entries(models)
    .filter(([slot, model]) => model && (!slots || slots.includes(Number(slot))))
    .map(([slot, model]) => ({ slot: Number(slot), model }));
  const budget = {
    ...(maxTokens && { maxTokens: Number(maxTokens) }),
    ...(maxCostUsd && { maxCostUsd: Number(maxCostUsd) }),
  };
  const singleProvider = provider || providers?.slots[0]?.provider;
  /** The run as the form stands, for its estimate. */
  const estimated: EstimateOptions =
    mode === 'single'
      ? { mode, ...(singleProvider && { provider: singleProvider }) }
      : mode === 'parallel'
        ? { mode, ...(slots && { slots }) }
        : {
            mode,
            rounds,
            ...(slots && slots.length >= 2 && { slots }),
            ...(synthesizer && { synthesizer: Number(synthesizer) }),
            ...(ranking && { ranking }),
            ...(earlyStop && { earlyStop }),
            ...(strategy === 'adaptive' && { strategy }),
            ...(chosenModels.length > 0 && { models: chosenModels }),
            ...(Object.keys(budget).length > 0 && { budget }),
          };

  const submit = (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const text = question.trim();
    if (!text) return setError('Write a question first.');
    let input: AskInput;
    if (mode === 'single') {
      const chosen = provider || providers?.slots[0]?.provider;
      if (!chosen) return setError('No slot to ask.');
      input = { mode, question: text, provider: chosen, ...(wiki && { grounding: { source: wiki } }) };
    } else if (mode === 'parallel') {
      input = { mode, question: text, ...(slots && { slots }), ...(wiki && { grounding: { source: wiki } }) };
    } else {
      if (slots && slots.length < 2) return setError('A debate needs at least two slots.');
      input = {
        mode,
        question: text,
        rounds,
        ...(quorum && { quorum: Number(quorum) }),
        ...(earlyStop && { earlyStop }),
        ...(wiki && { grounding: { source: wiki } }),
        ...(Object.keys(budget).length > 0 && { budget }),
        ...(slots && { slots }),
        ...(synthesizer && { synthesizer: Number(synthesizer) }),
        ...(!anonymous && { anonymous }),
        ...(ranking && { ranking }),
        ...(chosenModels.length > 0 && { models: chosenModels }),
        ...(strategy === 'adaptive' && { strategy, ...(agreement && { agreement: Number(agreement) }) }),
      };
    }
    const started = startRun(input, (id) => {
      liveRuns.set(id, started);
      replaceHash(sessionHref(id));
      dispatchEvent(new HashChangeEvent('hashchange'));
    });
    setRun(started);
  };

  return (
    <div class="ask">
      <form class="card ask-form" onSubmit={submit} aria-labelledby="ask-h">
        <h1 id="ask-h">Ask the panel</h1>
        <label for="question">Question</label>
        <textarea
          id="question"
          name="question"
          rows={4}
          required
          value={question}
          onInput={(e) => setQuestion(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
          }}
          placeholder="What should the five models debate?"
        />
        <fieldset class="modes">
          <legend>Mode</legend>
          {(
            [
              ['single', 'Single', 'one model'],
              ['parallel', 'Parallel', 'all five, no debate'],
              ['deep', 'Deep', 'debate in rounds, then a verdict'],
            ] as const
          ).map(([value, label, hint]) => (
            <label key={value} class="radio">
              <input type="radio" name="mode" value={value} checked={mode === value} onChange={() => setMode(value)} />
              <span>
                {label} <span class="muted small">{hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {mode === 'single' && (
          <fieldset class="slot-picker">
            <legend>Model</legend>
            {providers?.slots.map((s, i) => (
              <label key={s.slot} class="radio">
                <input
                  type="radio"
                  name="provider"
                  value={s.provider}
                  checked={provider ? provider === s.provider : i === 0}
                  onChange={() => setProvider(s.provider)}
                />
                <SlotName slot={s.slot} info={s} /> <span class="muted small">{s.strength}</span>
                {s.status === 'offline' && <OfflineMark />}
              </label>
            ))}
          </fieldset>
        )}
        <WikiPicker wikis={providers?.wikis} value={wiki} onChange={setWiki} />
        {mode === 'deep' && (
          <label class="inline-field">
            Rounds
            <select id="rounds" value={String(rounds)} onChange={(e) => setRounds(Number(e.currentTarget.value))}>
              {[2, 3, 4, 5].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        )}
        {mode !== 'single' && (
          <details class="options">
            <summary>Options</summary>
            {
              <fieldset>
                <legend>{mode === 'deep' ? 'Panel (two or more)' : 'Slots to ask'}</legend>
                {providers?.slots.map((s) => (
                  <label key={s.slot} class="radio">
                    <input
                      type="checkbox"
                      checked={!slots || slots.includes(s.slot)}
                      onChange={(e) => {
                        const all = providers.slots.map((x) => x.slot);
                        const current = slots ?? all;
                        const next = e.currentTarget.checked ? [...current, s.slot] : current.filter((x) => x !== s.slot);
                        setSlots(next.length === all.length ? undefined : next.sort());
                      }}
                    />
                    <SlotName slot={s.slot} info={s} />
                    {mode === 'deep' && s.models && s.models.length > 0 && (
                      <select
                        aria-label={`Model for slot ${s.slot}`}
                        value={models[s.slot] ?? ''}
                        onChange={(e) => setModels({ ...models, [s.slot]: e.currentTarget.value })}
                      >
                        <option value="">{s.model}</option>
                        {s.models.map((m) => (
                          <option key={m} value={m}>
                            {m}
                          </option>
                        ))}
                      </select>
                    )}
                  </label>
                ))}
              </fieldset>
            }
            {mode === 'deep' && (
              <div class="option-grid">
                <label>
                  Verdict written by
                  <select id="synthesizer" value={synthesizer} onChange={(e) => setSynthesizer(e.currentTarget.value)}>
                    <option value="">the panel's first slot</option>
                    {providers?.slots.map((s) => (
                      <option key={s.slot} value={String(s.slot)}>
                        slot {s.slot} ({s.provider})
                      </option>
                    ))}
                  </select>
                </label>
                <label class="radio">
                  <input type="checkbox" checked={anonymous} onChange={(e) => setAnonymous(e.currentTarget.checked)} />
                  Anonymous peers (each model sees "Response A, B…" in a shuffled order)
                </label>
                <label class="radio">
                  <input type="checkbox" checked={ranking} onChange={(e) => setRanking(e.currentTarget.checked)} />
                  Peer ranking (each model ranks the others' first answers)
                </label>
                <label>
                  Quorum <span class="muted small">(server default {providers?.quorum ?? 3})</span>
                  <input type="number" min={1} max={5} value={quorum} onInput={(e) => setQuorum(e.currentTarget.value)} />
                </label>
                <label class="radio">
                  <input type="checkbox" checked={earlyStop} onChange={(e) => setEarlyStop(e.currentTarget.checked)} />
                  Stop early when no model changes its position
                </label>
                <label class="radio">
                  <input
                    type="checkbox"
                    id="adaptive"
                    checked={strategy === 'adaptive'}
                    onChange={(e) => setStrategy(e.currentTarget.checked ? 'adaptive' : 'debate')}
                  />
                  Vote first: stop after round 1 when the answers agree (adaptive)
                </label>
                {strategy === 'adaptive' && (
                  <label>
                    Agreement needed <span class="muted small">(share of answers, 0.5–1; 1 unless given)</span>
                    <input
                      type="number"
                      id="agreement"
                      min={0.5}
                      max={1}
                      step="0.05"
                      value={agreement}
                      onInput={(e) => setAgreement(e.currentTarget.value)}
                    />
                  </label>
                )}
                <label>
                  Token budget
                  <input type="number" min={1} value={maxTokens} onInput={(e) => setMaxTokens(e.currentTarget.value)} />
                </label>
                <label>
                  Cost budget (USD)
                  <input
                    type="number"
                    min={0}
                    step="0.01"
                    value={maxCostUsd}
                    onInput={(e) => setMaxCostUsd(e.currentTarget.value)}
                  />
                </label>
              </div>
            )}
          </details>
        )}
        <AskEstimate question={question} request={estimated} />
        <ErrorNote error={error ? { detail: error } : undefined} />
        <button type="submit" class="primary" disabled={run !== undefined && run.view.status === 'running'}>
          Ask
        </button>
      </form>
      {run && <LazySessionPanel run={run} />}
      {run && <PanelRanking run={run} />}
    </div>
  );
}
