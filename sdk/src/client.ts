/** The configured generated client behind the SDK functions and the {@link Consilium} facade. */
import { type Auth, type Client, createClient, createConfig } from './generated/client/index.js';
import type { ClientOptions } from './generated/types.gen.js';
import { typedStreams } from './streams.js';

export interface ConsiliumClientOptions {
  /** Where the service runs; `http://127.0.0.1:8787` (the `npm start` default) when omitted. */
  baseUrl?: string;
  /** An API token from `POST /auth/tokens`, sent as `Authorization: Bearer`. */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** A fetch implementation, for tests or runtimes without a global one. */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** A client for one Consilium server. Pass it as `{ client }` to any operation. */
export function createConsiliumClient(options: ConsiliumClientOptions = {}): Client {
  const { token } = options;
  const config: NonNullable<Parameters<typeof createConfig<ClientOptions>>[0]> = {
    baseUrl: (options.baseUrl ?? 'http://127.0.0.1:8787') as ClientOptions['baseUrl'],
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.headers && { headers: options.headers }),
    // The generated client asks for a credential once per scheme an operation accepts (bearer,
    // then the `consilium_session` cookie) and sends every one it gets. The token is an API
    // token, so answer only for bearer: otherwise it would also go out as the session cookie.
    ...(token !== undefined && {
      auth: (auth: Auth) => (auth.scheme === 'bearer' ? (typeof token === 'function' ? token() : token) : undefined),
    }),
  };
  return typedStreams(createClient(createConfig<ClientOptions>(config)));
}
