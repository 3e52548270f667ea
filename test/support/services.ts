/**
 * The services some tests need from outside npm: PostgreSQL, Chromium, MediaWiki, nginx. `npm test`'s pretest
 * (`setup.sh`) installs the missing ones or stops before any test runs, so a test that still cannot find its
 * service fails. The one way to skip their tests instead: name them in `CONSILIUM_SKIP_SERVICES`
 * (comma-separated), which `setup.sh` honours too.
 */
export type Service = 'postgres' | 'chromium' | 'mediawiki' | 'nginx';

export const SKIP_SERVICES = 'CONSILIUM_SKIP_SERVICES';

/** Whether `CONSILIUM_SKIP_SERVICES` names the service: its tests then skip, whether it is there or not. */
export function skipsService(service: Service, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env[SKIP_SERVICES] ?? '')
    .split(',')
    .map((name) => name.trim())
    .includes(service);
}

/** Why a test skips: said the same way for every service. */
export function skipReason(service: Service): string {
  return `${SKIP_SERVICES} names ${service}`;
}

/** The error of a test whose service is missing: what is missing, how to get it, how to skip instead. */
export function missingService(service: Service, what: string, override: string): Error {
  return new Error(
    `${what} not found: \`bash test/support/setup.sh\` (npm test's pretest) installs it or says how; ` +
      `or set ${override}; or skip its tests with ${SKIP_SERVICES}=${service}`,
  );
}
