/** The facade's detachable calls: `detach: true` gives the `202`'s body, anything else the finished result. */
import { describe, expectTypeOf, test } from 'vitest';
import type { AskResult, DebateAccepted, ParallelResult, Session } from '../generated/types.gen.js';
import type { Consilium } from './consilium.js';

declare const c: Consilium;

describe('detach', () => {
  test('detach: true returns the accepted run (its id), never a result', () => {
    expectTypeOf(c.ask('Q?', { slot: 2, detach: true })).toEqualTypeOf<Promise<DebateAccepted>>();
    expectTypeOf(c.debates.parallel('Q?', { detach: true })).toEqualTypeOf<Promise<DebateAccepted>>();
    expectTypeOf(c.debates.run('Q?', { rounds: 2, detach: true })).toEqualTypeOf<Promise<DebateAccepted>>();
    expectTypeOf(c.sessions.followUp('ses_x', 'Q?', { mode: 'single', detach: true })).toEqualTypeOf<Promise<DebateAccepted>>();
  });

  test('without it (or false) the call returns the finished result', () => {
    expectTypeOf(c.ask('Q?')).toEqualTypeOf<Promise<AskResult>>();
    expectTypeOf(c.ask('Q?', { detach: false })).toEqualTypeOf<Promise<AskResult>>();
    expectTypeOf(c.debates.parallel('Q?', { slots: [1] })).toEqualTypeOf<Promise<ParallelResult>>();
    expectTypeOf(c.debates.run('Q?')).toEqualTypeOf<Promise<Session>>();
    expectTypeOf(c.sessions.followUp('ses_x', 'Q?')).toEqualTypeOf<Promise<Session>>();
  });

  test('a detach only known at run time is not accepted: the caller must say which answer it expects', () => {
    const detach = Math.random() > 0.5;
    // @ts-expect-error `boolean` matches neither overload, so the result type cannot lie.
    void c.ask('Q?', { detach });
  });
});
