import { useEffect, useState } from 'preact/hooks';
import type { ProviderCatalogue } from '../../sdk/src/index.js';
import { consilium } from './api.js';

let cached: Promise<ProviderCatalogue> | undefined;

/** The slots, fetched once per page load (they change only when the server restarts). */
export function useProviders(): ProviderCatalogue | undefined {
  const [catalogue, setCatalogue] = useState<ProviderCatalogue>();
  useEffect(() => {
    cached ??= consilium.providers();
    cached.then(setCatalogue, () => {
      cached = undefined;
    });
  }, []);
  return catalogue;
}
