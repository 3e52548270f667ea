/** "Did you mean …?": the known names closest to a mistyped one, by edit distance. */

/** Levenshtein distance, case-insensitive. */
export function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[y.length]!;
}

/**
 * Up to `max` of `names` close to `given`: within a third of its length in edits (at least 2), or starting with it,
 * nearest first (ties alphabetical).
 */
export function closest(given: string, names: Iterable<string>, max = 3): string[] {
  const limit = Math.max(2, Math.floor(given.length / 3));
  const low = given.toLowerCase();
  return [...names]
    .map((name) => ({ name, d: name.toLowerCase().startsWith(low) && low.length >= 3 ? 0.5 : distance(given, name) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, max)
    .map(({ name }) => name);
}

/** ` (did you mean a, b?)`, or nothing when no name is close. */
export function didYouMean(given: string, names: Iterable<string>): string {
  const near = closest(given, names);
  return near.length ? ` (did you mean ${near.join(', ')}?)` : '';
}
