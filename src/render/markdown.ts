// Markdown building blocks for pull-request comments and job summaries. Names come from users'
// files and the service, so everything shown as text is escaped: no HTML, no table breaks, no links,
// no mentions, no controls.

/** GitHub refuses comments over 65,536 characters; stay well below. */
export const MARKDOWN_LIMIT = 60_000;

// The escapers live with the other neutralisers (one per medium) in src/model/inert.ts.
export { escapeHtml, escapeMd, fenced, inlineCode } from '../model/inert.js';

/** A Markdown table; cells are already escaped. */
export function table(header: readonly string[], align: readonly ('l' | 'r')[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(align.map((a) => (a === 'r' ? '---:' : '---'))), ...rows.map(line)].join('\n');
}

/**
 * Largest n in [0, max] for which `fits(n)` holds, assuming fits is monotonic (true up to some n);
 * -1 when even 0 does not fit.
 */
export function largestFitting(max: number, fits: (n: number) => boolean): number {
  if (!fits(0)) return -1;
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
