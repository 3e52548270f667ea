/**
 * A streaming tail with its last `**` closed, so bold text being written shows bold rather than a literal `**` until
 * its closing marker arrives; an opener with nothing after it yet is held back. Inside an open code fence or inline
 * code nothing changes (there `**` is text).
 */
export function closeOpenStrong(tail: string): string {
  const fences = tail.match(/^ {0,3}(`{3,}|~{3,})/gm)?.length ?? 0;
  if (fences % 2 === 1) return tail;
  const prose = tail.replace(/`[^`\n]*`/g, '');
  if ((prose.match(/`/g)?.length ?? 0) % 2 === 1) return tail;
  const openers = prose.match(/\*\*/g)?.length ?? 0;
  if (openers % 2 === 0) return tail;
  const trimmed = tail.trimEnd();
  if (trimmed.endsWith('**')) return trimmed.slice(0, -2).trimEnd();
  return `${trimmed}**`;
}
