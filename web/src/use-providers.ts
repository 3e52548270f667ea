import { useEffect, useState } from 'preact/hooks';
import { listProviders, type ProviderCatalogue } from '../../sdk/src/index.js';
import { client, unwrap } from './api.js';

let cached: Promise<ProviderCatalogue> | undefined;

/** The slots, fetched once per page load (they change only when the server restarts). */
export function useProviders(): ProviderCatalogue | undefined {
  const [catalogue, setCatalogue] = useState<ProviderCatalogue>();
  useEffect(() => {
    cached ??= unwrap(listProviders({ client }));
    cached.then(setCatalogue, () => {
      cached = undefined;
    });
  }, []);
  return catalogue;
}
