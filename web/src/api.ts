/**
 * The UI's one door to the API: the SDK's `Consilium` facade, bound to the page's own origin. The sign-in cookie
 * (`consilium_session`, HttpOnly) rides along on same-origin requests, so no credential is handled here. Every failure
 * is a `ConsiliumError`; operations the facade has no method for go through `consilium.settle`.
 */
import { config as zodConfig } from 'zod';
import { Consilium } from '../../sdk/src/index.js';

// The SDK checks every response with zod, which by default compiles schemas with `new Function`: under the page's CSP
// (no 'unsafe-eval') that is refused, and where it is allowed the first event of a debate costs a 100 ms+ compile.
zodConfig({ jitless: true });

/** Listeners told when any call answers 401, so the app can show the sign-in form. */
const unauthorized = new Set<() => void>();
export const onUnauthorized = (listener: () => void) => {
  unauthorized.add(listener);
  return () => unauthorized.delete(listener);
};

export const consilium = new Consilium({
  baseUrl: location.origin,
  onError: (error) => {
    if (error.status === 401) for (const listener of unauthorized) listener();
  },
});

/** The generated client underneath, for the operations the facade has no method for (`consilium.settle` them). */
export const client = consilium.client;
