import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useReducer } from 'preact/hooks';
import type { SlotInfo } from '../../sdk/src/index.js';
import type { AnswerStatus } from './debate/model.js';
import type { Run } from './debate/runner.js';
import { renderMarkdown } from './markdown.js';
import { slotLook } from './slots.js';

/** Re-renders the caller at most once per frame while `run` changes (500 events/s become 60 renders/s). */
export function useRun(run: Run | undefined): number {
  const [tick, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (!run) return;
    let pending = 0;
    const unsubscribe = run.subscribe(() => {
      if (pending) return;
      // A timer too: frames stop in a hidden tab, and the page must be current when it comes back.
      const flush = () => {
        cancelAnimationFrame(pending);
        clearTimeout(timer);
        pending = 0;
        bump(0);
      };
      pending = requestAnimationFrame(flush);
      const timer = setTimeout(flush, 250);
    });
    return () => {
      unsubscribe();
      cancelAnimationFrame(pending);
    };
  }, [run]);
  return tick;
}

/** Sanitized Markdown for untrusted text (model output, questions). */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // The HTML is DOMPurify's output (see markdown.ts).
  return <div class={`md ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}

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

const STATUS_LABEL: Record<AnswerStatus, string> = {
  thinking: 'thinking…',
  streaming: 'streaming',
  done: 'done',
  failed: 'failed',
};
const STATUS_ICON: Record<AnswerStatus, string> = { thinking: '…', streaming: '▸', done: '✓', failed: '✕' };

export function StatusChip({ status }: { status: AnswerStatus }) {
  return (
    <span class={`status status-${status}`}>
      <span aria-hidden="true">{STATUS_ICON[status]}</span> {STATUS_LABEL[status]}
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

export function ErrorNote({ error }: { error?: { detail?: string; message?: string } | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error.detail ?? error.message}
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
