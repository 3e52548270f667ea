import { OfflineMark, SlotName } from './components.js';
import { useProviders } from './use-providers.js';

/** Each slot's provider, model, strength and whether it is a real (live) model or the offline stand-in. */
export function Providers() {
  const catalogue = useProviders();
  return (
    <section class="card" aria-labelledby="providers-h">
      <h1 id="providers-h">Providers</h1>
      {!catalogue && <p class="muted">Loading…</p>}
      {catalogue && (
        <>
          <p class="small">
            Verdicts are written by slot {catalogue.synthesizerSlot}; a round proceeds when {catalogue.quorum} slots answer.
          </p>
          <div class="scroll-x">
            <table class="providers">
              <thead>
                <tr>
                  <th scope="col">Slot</th>
                  <th scope="col">Model</th>
                  <th scope="col">Strength</th>
                  <th scope="col">API</th>
                  <th scope="col">Status</th>
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
