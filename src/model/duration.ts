// Durations as people write them on a command line or in a workflow: `10m`, `2h`, `1h30m`, `90s`,
// or a bare number of seconds.

/** Seconds, or undefined when `text` is no such duration. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const m = /^(?:(\d+)h)?(?:(\d+)m(?:in)?)?(?:(\d+)s)?$/.exec(t);
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

export const DURATION_EXPECTED = 'expected a duration such as 10m, 2h, 1h30m, 90s or a number of seconds';

/** `3 h 10 min`, `25 min`, `40 s`. */
export function durationText(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.ceil((s % 3600) / 60);
  if (h === 0) return `${m} min`;
  return m === 0 ? `${h} h` : m === 60 ? `${h + 1} h` : `${h} h ${m} min`;
}
