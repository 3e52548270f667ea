import type { WikiSourceInfo } from '../../../sdk/src/index.js';

/** The Ask form's choice of a wiki to ground the run in (any mode); nothing when the server configures none. */
export function WikiPicker({
  wikis,
  value,
  onChange,
}: {
  wikis: readonly WikiSourceInfo[] | undefined;
  value: string;
  onChange: (name: string) => void;
}) {
  if (!wikis?.length) return null;
  return (
    <label class="inline-field">
      Ground in wiki{' '}
      <select id="wiki" data-testid="wiki" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">none</option>
        {wikis.map((w) => (
          <option key={w.name} value={w.name}>
            {w.name}
            {w.siteName ? ` (${w.siteName})` : ''}
            {w.status === 'unreachable' ? ' — unreachable' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
