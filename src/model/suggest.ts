// "did you mean ...?" for misspelt field names, kinds, types and account names.

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** The closest candidate: a case-insensitive match first, else the nearest within a third of the length. */
export function suggest(input: string, all: readonly string[]): string | undefined {
  const candidates = all.filter((c) => c !== input);
  const lower = input.toLowerCase();
  const exact = candidates.find((c) => c.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = levenshtein(lower, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const allowed = input.length < 4 ? 0 : Math.max(1, Math.floor(input.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** `did you mean \`x\`?` or undefined. */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const s = suggest(input, candidates);
  return s === undefined ? undefined : `did you mean \`${s}\`?`;
}
