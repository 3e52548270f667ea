import { describe, expect, it } from 'vitest';
import { missingService, SKIP_SERVICES, skipsService } from './services.js';

describe('skipsService', () => {
  it('is true only for the services CONSILIUM_SKIP_SERVICES names, spaces around the commas allowed', () => {
    const env = { [SKIP_SERVICES]: 'postgres, mediawiki' };
    expect(skipsService('postgres', env)).toBe(true);
    expect(skipsService('mediawiki', env)).toBe(true);
    expect(skipsService('chromium', env)).toBe(false);
  });

  it('is false when the variable is unset or names something else', () => {
    expect(skipsService('postgres', {})).toBe(false);
    expect(skipsService('postgres', { [SKIP_SERVICES]: 'postgresql' })).toBe(false);
  });
});

it('missingService says how to install the service, how to point at one, and how to skip its tests', () => {
  expect(missingService('chromium', 'Chromium (/opt/c)', 'CONSILIUM_CHROMIUM').message).toBe(
    "Chromium (/opt/c) not found: `bash test/support/setup.sh` (npm test's pretest) installs it or says how; " +
      'or set CONSILIUM_CHROMIUM; or skip its tests with CONSILIUM_SKIP_SERVICES=chromium',
  );
});
