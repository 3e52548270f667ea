import { isFinished } from './model.js';
import type { Run } from './runner.js';

/** How this page's watching of the session goes: connecting, live, reconnecting after a drop, or disconnected. */
export function Connection({ run }: { run: Run }) {
  if (isFinished(run.view) && run.connection === 'closed') return null;
  const label = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', closed: 'disconnected' }[
    run.connection
  ];
  return (
    <span class={`pill conn conn-${run.connection}`} role="status">
      {label}
    </span>
  );
}
