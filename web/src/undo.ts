/**
 * Changes that can be taken back for a few seconds, shown as one toast each (`Toasts.tsx`). A delete is not sent
 * until its toast has run out (or the page is leaving): Undo then simply never sends it, and the toast says so
 * ("Deleting in 5 s"), so nothing claims to be gone before it is. An archive is sent at once; its Undo sends it back.
 */
import { visibleControls } from '../../sdk/src/terminal/terminal.js';
import { consilium } from './api.js';

export interface Toast {
  id: number;
  text: string;
  /** The session it concerns, so a list can hide a session being deleted. */
  sessionId: string;
  kind: 'delete' | 'archive';
  undo(): void;
}

/** How long a delete waits for an Undo. */
export const UNDO_MS = 5000;

let toasts: Toast[] = [];
let next = 1;
const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};

export const currentToasts = () => toasts;
export function onToasts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const remove = (id: number) => {
  toasts = toasts.filter((t) => t.id !== id);
  changed();
};

/** Deletes pending (not yet sent), by session id: their sends, to flush when the page goes. */
const pending = new Map<string, () => void>();
addEventListener('pagehide', () => {
  for (const send of [...pending.values()]) send();
});

/** Ids of sessions whose delete is pending: a list hides them. */
export const pendingDeletes = () => new Set(pending.keys());

/** Deletes the session after `UNDO_MS` unless Undo is pressed; `onDone` hears how it ended. */
export function deleteWithUndo(sessionId: string, question: string, onDone?: (deleted: boolean) => void): void {
  const id = next++;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    clearTimeout(timer);
    pending.delete(sessionId);
    remove(id);
    consilium.sessions.delete(sessionId).then(
      () => onDone?.(true),
      () => onDone?.(false),
    );
  };
  timer = setTimeout(send, UNDO_MS);
  pending.set(sessionId, send);
  toasts = [
    ...toasts,
    {
      id,
      sessionId,
      kind: 'delete',
      text: `Deleting “${shorten(question)}” in ${UNDO_MS / 1000} s.`,
      undo: () => {
        clearTimeout(timer);
        pending.delete(sessionId);
        remove(id);
        onDone?.(false);
      },
    },
  ];
  changed();
}

/** Archives the session now; the toast's Undo brings it back. */
export async function archiveWithUndo(sessionId: string, question: string, onChange?: () => void): Promise<void> {
  await consilium.sessions.archive(sessionId, true);
  const id = next++;
  const timer = setTimeout(() => remove(id), UNDO_MS);
  toasts = [
    ...toasts,
    {
      id,
      sessionId,
      kind: 'archive',
      text: `Archived “${shorten(question)}”.`,
      undo: () => {
        clearTimeout(timer);
        remove(id);
        void consilium.sessions.archive(sessionId, false).then(onChange, onChange);
      },
    },
  ];
  changed();
  onChange?.();
}

/** A question in a toast: its first 60 characters, its controls and bidi overrides shown as marks. */
const shorten = (text: string) =>
  visibleControls(Array.from(text).length > 60 ? `${Array.from(text).slice(0, 57).join('')}…` : text);
