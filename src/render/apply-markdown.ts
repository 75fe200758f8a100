// The apply report as a pull-request comment or job summary: status table, failures with their
// reasons first, then what is done but needs a look (by reason code), skipped and done. Over the size
// limit done and skipped lines go; failures and warnings stay.

import type { ApplyReport, ChangeResult } from '../model/plan.js';
import { applySummaryLine, failedTestLine, stopLine } from './apply-text.js';
import { ACTION_SIGN, ACTION_WORD, callsText, duration, groupByAccount, leaseText } from './common.js';
import { escapeMd, inlineCode, largestFitting, MARKDOWN_LIMIT, table } from './markdown.js';
import { reasonTone } from './reasons.js';

export const APPLY_MARKER = '<!-- postureops-apply -->';

export function renderApplyMarkdown(report: ApplyReport, limit = MARKDOWN_LIMIT): string {
  const failed = report.results.filter((r) => r.status === 'failed');
  const skipped = report.results.filter((r) => r.status === 'skipped');
  const done = report.results.filter((r) => r.status === 'done');
  // Done, but leaving something a person should look at (two records of one name): shown, not folded.
  const warned = done.filter((r) => reasonTone(r.reasonCode) === 'warning');

  const head: string[] = [APPLY_MARKER, '## postureops apply', `**${escapeMd(applySummaryLine(report))}**`];
  if (report.stopped) head.push(`> [!WARNING]\n> ${escapeMd(stopLine(report.stopped))}`);
  for (const t of report.failedTests ?? []) head.push(`> [!CAUTION]\n> ${escapeMd(failedTestLine(t))}`);
  const groups = groupByAccount(report.results, report.accounts ?? []);
  if (groups.length > 0) {
    const count = (rs: ChangeResult[], s: ChangeResult['status']) => String(rs.filter((r) => r.status === s).length);
    const rows = groups.map(([account, rs]) => [escapeMd(account), count(rs, 'done'), count(rs, 'failed'), count(rs, 'skipped')]);
    const s = report.summary;
    rows.push(['**Total**', `**${s.done}**`, `**${s.failed}**`, `**${s.skipped}**`]);
    head.push(table(['Account', 'Done', 'Failed', 'Skipped'], ['l', 'r', 'r', 'r'], rows));
  }
  const tail = `API calls made: ${escapeMd(callsText(report.apiCalls))} · waited for rate limits: ${report.waitedSeconds > 0 ? duration(report.waitedSeconds) : 'no'}${report.lease ? ` · ${escapeMd(leaseText(report.lease))}` : ''}`;

  const render = (shownSkipped: number, shownDone: number): string => {
    const parts = [...head];
    if (failed.length > 0) parts.push(`### Failed (${failed.length})\n\n${failed.map(resultLine).join('\n')}`);
    if (warned.length > 0) parts.push(`### Done, with a warning (${warned.length})\n\n${warned.map(resultLine).join('\n')}`);
    if (skipped.length > 0 && shownSkipped > 0) parts.push(`### Skipped (${skipped.length})\n\n${skipped.slice(0, shownSkipped).map(resultLine).join('\n')}`);
    if (done.length > 0 && shownDone > 0) {
      parts.push(`<details><summary>Done (${done.length})</summary>\n\n${done.slice(0, shownDone).map(resultLine).join('\n')}\n\n</details>`);
    }
    parts.push(tail);
    const hidden = skipped.length - shownSkipped + done.length - shownDone;
    if (hidden > 0) parts.push(`**… truncated: ${hidden} results not shown; run postureops apply with --format json for the full report**`);
    return parts.join('\n\n') + '\n';
  };

  const fits = (text: string) => text.length <= limit;
  if (fits(render(skipped.length, done.length))) return render(skipped.length, done.length);
  const d = largestFitting(done.length, (n) => fits(render(skipped.length, n)));
  if (d >= 0) return render(skipped.length, d);
  const s = largestFitting(skipped.length, (n) => fits(render(n, 0)));
  const text = render(Math.max(0, s), 0);
  // Last resort, far beyond any real report: a comment the API refuses helps nobody.
  return fits(text) ? text : text.slice(0, limit - 1) + '\n';
}

function resultLine(r: ChangeResult): string {
  const id = r.liveId ? ` ${inlineCode(r.liveId)}` : '';
  const reason = r.reason ? ` — ${escapeMd(r.reason)}` : '';
  const test = r.test ? ` · test ${r.test.ok ? 'ok' : 'failed'}${r.test.message ? `: ${escapeMd(r.test.message)}` : ''}` : '';
  return `- **${ACTION_SIGN[r.action]} ${ACTION_WORD[r.action]}** ${escapeMd(r.account)} · ${escapeMd(r.kind)} **${escapeMd(r.name)}**${id}${reason}${test}`;
}
