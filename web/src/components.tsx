import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ConsiliumError, SlotInfo } from '../../sdk/src/index.js';
import { slotLook } from './slots.js';

export function SlotName({ slot, info }: { slot: number; info?: SlotInfo }) {
  const look = slotLook(slot);
  return (
    <span class={`${look.className} slot-name`} data-slot={slot}>
      <span class="shape" aria-hidden="true">
        {look.shape}
      </span>
      <span>{info?.provider ?? `slot ${slot}`}</span>
    </span>
  );
}

/** A compact slot marker (shape and number) for matrices and supporting-model lists. */
export function SlotChip({ slot, info }: { slot: number; info?: SlotInfo }) {
  const look = slotLook(slot);
  return (
    <span class={`${look.className} slot-chip`} title={info ? `${info.provider} (${info.model})` : `slot ${slot}`}>
      <span aria-hidden="true">{look.shape}</span>
      <span class="sr-only">{info?.provider ?? 'slot'}</span> {slot}
    </span>
  );
}

export function OfflineMark() {
  return (
    <span class="offline-mark" title="This slot has no key: its text comes from the built-in offline stand-in, not a real model.">
      <span aria-hidden="true">⚠</span> offline stand-in
    </span>
  );
}

/** A failure in words: the server's own (its problem's detail or title), else what the client knows. */
function failureText(error: ConsiliumError): string {
  if (error.problem) return error.problem.detail ?? error.problem.title;
  if (error.code === 'network_error')
    return `The server could not be reached (${(error.cause as Error | undefined)?.message ?? error.message}).`;
  return error.message;
}

export function ErrorNote({ error }: { error?: ConsiliumError | { detail: string } | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {'detail' in error ? error.detail : failureText(error)}
    </p>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * Renders a component loaded on first use, so the first view ships without it (the session view and its Markdown
 * renderer are most of the bundle).
 */
export function lazyComponent<P extends object>(load: () => Promise<(props: P) => preact.JSX.Element | null>) {
  let loaded: ((props: P) => preact.JSX.Element | null) | undefined;
  let loading: Promise<unknown> | undefined;
  const Lazy = (props: P) => {
    const [, setReady] = useState(false);
    // What this render showed: a load (the idle preload) that ends between the render and the effect
    // below must still replace "Loading…", or the page stays on it (seen in the UI tests, 1 run in 10).
    const showedLoading = !loaded;
    useEffect(() => {
      if (loaded) {
        if (showedLoading) setReady(true);
        return;
      }
      loading ??= load().then((component) => {
        loaded = component;
      });
      loading.then(() => setReady(true));
    }, []);
    if (!loaded)
      return (
        <p class="muted" aria-busy="true">
          Loading…
        </p>
      );
    const Component = loaded;
    return <Component {...props} />;
  };
  /** Loads it while the page is idle, so its compile is not a long task in the middle of a debate. */
  Lazy.preload = () => {
    const start = () => {
      loading ??= load().then((component) => {
        loaded = component;
      });
    };
    // After the first view has settled, then when the page is idle.
    setTimeout(() => ('requestIdleCallback' in window ? requestIdleCallback(start, { timeout: 3000 }) : start()), 1500);
  };
  return Lazy;
}
