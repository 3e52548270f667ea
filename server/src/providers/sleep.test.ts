import { describe, expect, it } from 'vitest';
import { sleep } from './sleep.js';

describe('sleep', () => {
  it('resolves after the delay, and at once for 0', async () => {
    await expect(sleep(5)).resolves.toBeUndefined();
    await expect(sleep(0)).resolves.toBeUndefined();
  });

  it("rejects with the signal's reason when aborted before or during the wait", async () => {
    const reason = new Error('stop');
    await expect(sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    // An hour-long wait: the test can only end because the abort cuts it short.
    const waiting = sleep(3_600_000, controller.signal);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});
