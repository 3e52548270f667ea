import { useState } from 'preact/hooks';
import { type ConsiliumError, listProviders, type SlotHealth } from '../../sdk/src/index.js';
import { client, consilium } from './api.js';
import { ErrorNote, OfflineMark, SlotName } from './components.js';
import { useProviders } from './use-providers.js';

/**
 * Each slot's provider, model, strength and whether it is a real (live) model or the offline stand-in; on request,
 * whether its endpoint is reachable (`GET /providers?check=true`, which asks each provider's free model list).
 */
export function Providers() {
  const catalogue = useProviders();
  const [health, setHealth] = useState<Map<number, SlotHealth>>();
  const [checking, setChecking] = useState(false);
  const [failure, setFailure] = useState<ConsiliumError>();
  const check = async () => {
    setChecking(true);
    setFailure(undefined);
    try {
      const checked = await consilium.settle(listProviders({ client, query: { check: true } }));
      setHealth(new Map(checked.slots.flatMap((s) => (s.health ? [[s.slot, s.health] as const] : []))));
    } catch (err) {
      setFailure(err as ConsiliumError);
    } finally {
      setChecking(false);
    }
  };
  return (
    <section class="card" aria-labelledby="providers-h">
      <h1 id="providers-h">Providers</h1>
      {!catalogue && <p class="muted">Loading…</p>}
      {catalogue && (
        <>
          <p class="small">
            Verdicts are written by slot {catalogue.synthesizerSlot}; a round proceeds when {catalogue.quorum} slots answer.
          </p>
          <p>
            <button type="button" onClick={check} disabled={checking} data-testid="check-reachability">
              {checking ? 'Checking…' : 'Check reachability'}
            </button>
          </p>
          <ErrorNote error={failure} />
          <div class="scroll-x">
            <table class="providers">
              <thead>
                <tr>
                  <th scope="col">Slot</th>
                  <th scope="col">Model</th>
                  <th scope="col">Strength</th>
                  <th scope="col">API</th>
                  <th scope="col">Status</th>
                  {health && <th scope="col">Reachable</th>}
                </tr>
              </thead>
              <tbody>
                {catalogue.slots.map((s) => (
                  <tr key={s.slot}>
                    <th scope="row">
                      <SlotName slot={s.slot} info={s} />
                    </th>
                    <td>{s.model}</td>
                    <td>{s.strength}</td>
                    <td>{s.api}</td>
                    <td>{s.status === 'offline' ? <OfflineMark /> : <span class="live-mark">● live (configured)</span>}</td>
                    {health && <HealthCell health={health.get(s.slot)} />}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

/** One slot's check: status, latency, the error's code and its message (which quotes the provider: only ever text). */
function HealthCell({ health }: { health: SlotHealth | undefined }) {
  if (!health) return <td class="muted">not checked</td>;
  return (
    <td data-testid="slot-health" data-status={health.status}>
      <span class={`health health-${health.status}`}>
        {health.status === 'ok' ? '✔ reachable' : health.status === 'offline' ? 'offline (not asked)' : '✖ failing'}
      </span>
      {health.latencyMs !== undefined && <span class="muted"> · {health.latencyMs} ms</span>}
      {health.modelFound === false && <span> · model not listed</span>}
      {health.error && (
        <>
          {' · '}
          <code>{health.error.code}</code>
          {health.error.status !== undefined && ` (HTTP ${health.error.status})`}
          {/* The cause is what an operator acts on: the refused address, the host that does not resolve. */}
          <div class="muted small" title={health.endpoint}>
            {health.error.message}
          </div>
        </>
      )}
    </td>
  );
}
