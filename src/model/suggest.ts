// "did you mean ...?" for misspelt field names, kinds, types and account names, and the judgement
// of a value against a closed set the service knows (misspelt, or new to us).

/**
 * Edit distance with adjacent transpositions (optimal string alignment, the restricted
 * Damerau-Levenshtein distance): `Complaince` is one edit from `Compliance`, not two.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    const prev = rows[i - 1];
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      cur[j] = d;
    }
    rows.push(cur);
  }
  return rows[a.length][b.length];
}

/** Kept for callers that named it so: the same distance. */
export const levenshtein = editDistance;

/** The closest candidate: a case-insensitive match first, else the nearest within a third of the length. */
export function suggest(input: string, all: readonly string[]): string | undefined {
  const candidates = all.filter((c) => c !== input);
  const lower = input.toLowerCase();
  const exact = candidates.find((c) => c.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
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

/**
 * How many edits still make a value a misspelling of `known`: a third of its length, at most two.
 * A value of one or two characters is two edits from almost anything, so only its case can be
 * wrong; three to five characters allow one edit; six and more allow two.
 */
export function misspellingReach(known: string): number {
  return Math.min(2, Math.floor(known.length / 3));
}

/** A value judged against a closed set: one of it, a misspelling of one (with the one), or new. */
export type Membership = { is: 'known'; value: string } | { is: 'misspelt'; value: string } | { is: 'unknown' };

/**
 * Judges `value` against the `known` spellings. Case-insensitive sets accept any case. A value is a
 * misspelling of the known one nearest to it (compared without case) when within that one's
 * misspellingReach, or when it differs only in case from one of a case-sensitive set; a tie between
 * two known ones goes to the first listed. Anything else is unknown: new to this version.
 */
export function membership(value: string, known: readonly string[], caseSensitive: boolean): Membership {
  if (known.includes(value)) return { is: 'known', value };
  const lower = value.toLowerCase();
  const sameLetters = known.find((k) => k.toLowerCase() === lower);
  if (sameLetters !== undefined) return caseSensitive ? { is: 'misspelt', value: sameLetters } : { is: 'known', value: sameLetters };
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d <= misspellingReach(k) && d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best === undefined ? { is: 'unknown' } : { is: 'misspelt', value: best };
}
