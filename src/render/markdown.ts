// Markdown building blocks for pull-request comments and job summaries. Names come from users'
// files and the service, so everything shown as text is escaped: no HTML, no table breaks, no links.

/** GitHub refuses comments over 65,536 characters; stay well below. */
export const MARKDOWN_LIMIT = 60_000;

/**
 * Plain text for Markdown (tables included): HTML special characters become entities; emphasis,
 * code, link and table punctuation is backslash-escaped. Never used at the start of a line.
 */
export function escapeMd(text: string): string {
  return text
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1');
}

/** Text inside raw HTML (`<summary>`), where Markdown escapes would show literally. */
export function escapeHtml(text: string): string {
  return text
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\|/g, '&#124;');
}

function longestRun(text: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    run = c === ch ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/** A code span that survives backticks inside; `|` escaped so it also survives table cells. */
export function inlineCode(text: string): string {
  const flat = text.replace(/\r\n|\r|\n/g, ' ');
  const ticks = '`'.repeat(longestRun(flat, '`') + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${flat.replace(/\|/g, '\\|')}${pad}${ticks}`;
}

/** A fenced block whose fence is longer than any backtick run inside, so content cannot close it. */
export function fenced(lang: string, lines: readonly string[]): string {
  const body = lines.join('\n');
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  return `${fence}${lang}\n${body}\n${fence}`;
}

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
