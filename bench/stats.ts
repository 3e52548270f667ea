/** Small helpers shared by the benchmarks: percentiles and a fixed-width report line. */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function report(name: string, value: number, unit: string, note = ''): void {
  console.log(`${name.padEnd(48)} ${value.toFixed(3).padStart(10)} ${unit.padEnd(6)} ${note}`);
}
