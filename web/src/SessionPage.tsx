import { useEffect, useMemo, useReducer } from 'preact/hooks';
import type { User } from '../../sdk/src/index.js';
import { LazySessionPanel } from './debate/lazy.js';
import { openRun } from './debate/runner.js';
import { liveRuns } from './debate/runs.js';
import { PanelRanking } from './PanelRanking.js';
import { SessionActions } from './SessionActions.js';

/** A session by id: the run this page started, or the stored session replayed (and followed while it runs). */
export function SessionPage({ id, user }: { id: string; user?: User }) {
  const run = useMemo(() => liveRuns.get(id) ?? openRun(id), [id]);
  useEffect(() => () => (run.owned ? undefined : run.detach()), [run]);
  // A 404 may arrive after the first render and must replace the panel; other changes are the panel's to show.
  const [, failed] = useReducer((n: number) => n + 1, 0);
  const failedAtRender = run.failure !== undefined;
  useEffect(() => {
    const unsubscribe = run.subscribe(() => run.failure && failed(0));
    // It may have failed between the render and this subscription; no change would announce it again.
    if (run.failure && !failedAtRender) failed(0);
    return unsubscribe;
  }, [run]);
  if (run.failure?.code === 'not_found' || run.failure?.status === 404) {
    return (
      <section class="card">
        <h1>Session not found</h1>
        <p>There is no session {id} that you can see.</p>
        <a href="#/sessions">Back to history</a>
      </section>
    );
  }
  return (
    <>
      <LazySessionPanel run={run} />
      <SessionActions id={id} run={run} user={user} />
      <PanelRanking run={run} />
    </>
  );
}
