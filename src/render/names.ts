// Long names in narrow places (diagram labels, table cells): cut in the middle so the end, where
// names usually differ (`…-prod-eu`, `…-to-jira`), stays; names that differ stay different.

/** At most `max` code points: the start and the end of `text` around an ellipsis. */
export function shortMiddle(text: string, max: number): string {
  const points = [...text];
  if (points.length <= max) return text;
  const keep = Math.max(2, max) - 1;
  const tail = Math.ceil(keep / 2);
  return points.slice(0, keep - tail).join('') + '…' + points.slice(points.length - tail).join('');
}

/**
 * Short forms of `names` (at most `max` code points each, whitespace runs as one space) that are as
 * distinct as the names: when two cut the same, the later ones (in sorted order) end in ` ~2`, ` ~3`…
 */
export function shortNames(names: Iterable<string>, max: number): Map<string, string> {
  const unique = [...new Set(names)].sort();
  const out = new Map<string, string>();
  const taken = new Set<string>();
  // Names short enough to stay whole claim their form first: a cut name never takes a whole one's.
  const flat = (n: string) => n.replace(/\s+/g, ' ');
  for (const n of unique) {
    const f = flat(n);
    if ([...f].length <= max && !taken.has(f)) {
      out.set(n, f);
      taken.add(f);
    }
  }
  for (const n of unique) {
    if (out.has(n)) continue;
    let short = shortMiddle(flat(n), max);
    for (let i = 2; taken.has(short); i++) short = `${shortMiddle(flat(n), max - String(i).length - 2)} ~${i}`;
    out.set(n, short);
    taken.add(short);
  }
  return out;
}
