import { useEffect, useState } from 'preact/hooks';
import { currentToasts, onToasts } from './undo.js';

/** The undo toasts, bottom of the page; each has its Undo button. Announced politely as they appear. */
export function Toasts() {
  const [, setVersion] = useState(0);
  useEffect(() => onToasts(() => setVersion((v) => v + 1)), []);
  const toasts = currentToasts();
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.map((t) => (
        <div class="toast" key={t.id} data-testid={`toast-${t.kind}`}>
          <span class="toast-text">{t.text}</span>
          <button type="button" onClick={() => t.undo()}>
            Undo
          </button>
        </div>
      ))}
    </div>
  );
}
