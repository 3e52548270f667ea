import { useEffect, useReducer } from 'preact/hooks';
import type { Run } from './runner.js';

/** Re-renders the caller at most once per frame while `run` changes (500 events/s become 60 renders/s). */
export function useRun(run: Run | undefined): number {
  const [tick, bump] = useReducer((n: number) => n + 1, 0);
  // What this render showed: changes between the render and the subscription below would otherwise be missed.
  const rendered = run?.version;
  useEffect(() => {
    if (!run) return;
    let pending = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => {
      if (pending) return;
      // A timer too: frames stop in a hidden tab, and the page must be current when it comes back.
      const flush = () => {
        cancelAnimationFrame(pending);
        clearTimeout(timer);
        pending = 0;
        bump(0);
      };
      pending = requestAnimationFrame(flush);
      timer = setTimeout(flush, 250);
    };
    const unsubscribe = run.subscribe(schedule);
    if (run.version !== rendered) schedule();
    return () => {
      unsubscribe();
      cancelAnimationFrame(pending);
      clearTimeout(timer);
    };
  }, [run]);
  return tick;
}
