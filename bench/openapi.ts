/** The contract's lint result as `npm run lint:openapi` gives it (redocly, `openapi/redocly.yaml`): errors and warnings, recorded so READMEs quote the real count. */
import { spawnSync } from 'node:child_process';
import { record } from './figures.js';
import { report } from './stats.js';

interface LintTotals {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

export async function benchOpenapi(): Promise<void> {
  const lint = spawnSync(
    'npx',
    ['redocly', 'lint', '--config', 'openapi/redocly.yaml', 'openapi/openapi.yaml', '--format=json'],
    { encoding: 'utf8' },
  );
  const result = JSON.parse(lint.stdout) as LintTotals;
  report('openapi: redocly lint errors', result.totals.errors, '', 'goal 0');
  report('openapi: redocly lint warnings', result.totals.warnings, '');
  for (const p of result.problems) console.log(`    ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
  record({ id: 'errors', label: '`redocly lint` errors', value: result.totals.errors, unit: '', goal: { op: '=', value: 0 } });
  record({ id: 'warnings', label: '`redocly lint` warnings', value: result.totals.warnings, unit: '' });
}
