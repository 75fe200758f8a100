// The texts the Action posts: the pull-request comment (a plan, an apply report, a failure, or the
// validation of a fork's pull request) and the drift issue. Pure functions of their inputs.
//
// Every body opens with a hidden marker naming the folder (one comment, one issue per folder) and a
// digest of everything but the link to the run: an identical digest means nothing to write, so a
// re-run, or another event on the same commit, leaves the comment alone. A new commit changes the
// SHA in the body, so the comment always names the commit its content was computed for.

import { createHash } from 'node:crypto';
import { type Diagnostic, sortDiagnostics } from '../model/diagnostics.js';
import type { ApplyReport, Plan } from '../model/plan.js';
import { diagnosticLine, refusalRemedy } from '../render/common.js';
import { escapeHtml, escapeMd, inlineCode, MARKDOWN_LIMIT } from '../render/markdown.js';
import { renderApplyMarkdown, renderPlanMarkdown } from '../render/index.js';
import { renderDriftMarkdown } from '../render/drift-markdown.js';
import { deliveryBlock, deliverySection, type DeliveryRecord } from './delivery.js';
import type { Failure } from './pipeline.js';

export type BodyKind = 'comment' | 'drift';

export interface Stamp {
  folder: string;
  sha: string;
  runUrl: string;
}

export interface Body {
  text: string;
  digest: string;
  /** The plan deletes something (drives the `postureops:delete` label). */
  deletes: boolean;
}

export interface Marker {
  folder: string;
  digest: string;
  deletes: boolean;
}

/**
 * The job summary holds the whole plan the comment links to. GitHub takes up to 1 MiB of it (bytes);
 * in UTF-16 code units, at most three bytes each, this stays under that with room for the rest.
 */
export const SUMMARY_LIMIT = 340_000;

/** Room left for the marker, warning and footer within GitHub's 65536-character limit. */
const CONTENT_LIMIT = MARKDOWN_LIMIT - 2_000;
const MAX_LISTED = 20;

function markerPrefix(kind: BodyKind, folder: string): string {
  return `<!-- postureops:${kind} folder=${encodeURIComponent(folder)} `;
}

/** The marker of a body posted for `folder`, or undefined when the body is not ours (or another folder's). */
export function readMarker(kind: BodyKind, body: string | undefined | null): Marker | undefined {
  const m = new RegExp(`^<!-- postureops:${kind} folder=(\\S+) digest=([0-9a-f]+) deletes=(true|false) -->`).exec(body ?? '');
  if (!m) return undefined;
  try {
    return { folder: decodeURIComponent(m[1]), digest: m[2], deletes: m[3] === 'true' };
  } catch {
    return undefined;
  }
}

export function isOurs(kind: BodyKind, folder: string, body: string | undefined | null): boolean {
  return (body ?? '').startsWith(markerPrefix(kind, folder)) && readMarker(kind, body)?.folder === folder;
}

function assemble(kind: BodyKind, stamp: Stamp, content: string, deletes: boolean): Body {
  const short = stamp.sha.slice(0, 7);
  const where = `folder ${inlineCode(stamp.folder)} · commit ${inlineCode(short || 'unknown')}`;
  const digest = createHash('sha256').update(`${kind}\n${stamp.folder}\n${stamp.sha}\n${content}`).digest('hex').slice(0, 16);
  const text = [
    `${markerPrefix(kind, stamp.folder)}digest=${digest} deletes=${deletes} -->`,
    content.trimEnd(),
    '---',
    `<sub>postureops · ${where} · ${stamp.runUrl ? `[workflow run][${RUN_REF}]` : 'workflow run'}</sub>`,
    ...(stamp.runUrl ? [`[${RUN_REF}]: ${stamp.runUrl}`] : []),
  ].join('\n\n');
  return { text: text + '\n', digest, deletes };
}

/**
 * The run's link as a reference, defined once at the end of the body: every mark of something left
 * out costs the same few characters whatever the URL, and the digest (taken without the definition)
 * ignores the link. Outside text has its brackets escaped, so only postureops writes the reference.
 */
const RUN_REF = 'postureops-run';

/** Where the whole plan is, for the marks of what a comment leaves out. */
export function fullPlanAt(stamp: Stamp): string {
  return stamp.runUrl ? `see the [job summary][${RUN_REF}]` : 'see the job summary of this run';
}

/** What the routing report of a pull request found: the cells that change against its base (undefined: no base to compare with). */
export interface ReportSeen {
  changedCells?: number;
}

/**
 * The line that points at the routing report (`routes --format html` against the pull request's base)
 * the workflow uploads as the run's `postureops-routing` artifact. Through the run's reference, like
 * every other link: the digest ignores which run it was.
 */
export function routingReportLine(stamp: Stamp, report: ReportSeen): string {
  const run = stamp.runUrl ? `[workflow run][${RUN_REF}]` : 'workflow run';
  const n = report.changedCells;
  const changed = n === undefined ? '' : n === 0 ? ' No cell changes against the base.' : ` ${n} cell${n === 1 ? '' : 's'} change against the base, marked in it.`;
  return `Routing report (every account's category × severity matrix, in a browser): the \`postureops-routing\` artifact of the ${run}.${changed}`;
}

/** `content` with the routing report's line at its end, `content` made to leave room for it. */
function withReport(stamp: Stamp, report: ReportSeen | undefined, content: (limit: number) => string): string {
  if (!report) return content(CONTENT_LIMIT);
  const line = routingReportLine(stamp, report);
  return `${content(CONTENT_LIMIT - line.length - 2).trimEnd()}\n\n${line}`;
}

export function planBody(stamp: Stamp, plan: Plan, report?: ReportSeen): Body {
  const content = withReport(stamp, report, (limit) => renderPlanMarkdown(plan, limit, { runStats: false, fullPlan: fullPlanAt(stamp) }));
  return assemble('comment', stamp, content, plan.summary.delete > 0);
}

export function applyBody(stamp: Stamp, report: ApplyReport): Body {
  return assemble('comment', stamp, renderApplyMarkdown(report, CONTENT_LIMIT), false);
}

export interface FailureText {
  title: string;
  what: string;
  fix: string;
}

/** What failed and how to fix it, for the comment, the summary and the log alike. */
export function describeFailure(failure: Failure, annotations: number): FailureText {
  const seeAnnotations = `${annotations} annotation${annotations === 1 ? '' : 's'} on the files of this run`;
  switch (failure.kind) {
    case 'invalid':
      return {
        title: 'the configuration is invalid',
        what: `postureops found ${countErrors(failure.diagnostics)}; nothing was sent to the service (${seeAnnotations}).`,
        fix: 'Fix the files named below and push again; `postureops validate DIR` shows the same problems locally.',
      };
    case 'no-plan':
      return {
        title: 'no plan could be made',
        what: `The live state and the configuration cannot be reconciled: ${countErrors(failure.diagnostics)} (${seeAnnotations}).`,
        fix: 'Fix the problems below (in the files, or in the service), then run the workflow again.',
      };
    case 'service':
      return {
        title: 'the service could not be read',
        what: `Reading the live state failed: ${failure.message}`,
        fix: 'Check SVC_BASE_URL, SVC_API_KEY_ID and SVC_API_SECRET in the workflow, and that the service is reachable from the runner; then re-run the job.',
      };
    case 'scope':
      return {
        title: 'the changed accounts could not be found',
        what: `Finding what changed since the base commit failed: ${failure.message}`,
        fix: 'Check out with `fetch-depth: 0` (or let the Action fetch the base commit: it needs `contents: read`), or set the input `changed-since: none` to plan every account; then re-run the job.',
      };
    case 'merge':
      return {
        title: "the shards' plans could not be merged",
        what: failure.message,
        fix: 'Re-run the failed shard jobs (each uploads its plan), and make every shard plan the same commit with the same `shard: I/N` count; then re-run the merge job.',
      };
    case 'too-long':
      return {
        title: 'the run would take longer than max-duration',
        what: failure.message,
        fix: 'Shard the run (input `shard`, one service user per shard: examples/.github/workflows/postureops-sharded.yml), plan only what changed (`changed-since`), or raise `max-duration`; then re-run the job.',
      };
    case 'refused': {
      const r = failure.plan.refusal!;
      return {
        title: `the plan was refused (${r.code})`,
        what: [r.message, ...r.details].join('; '),
        fix:
          r.code === 'prevent-destroy' || r.code === 'rehearsal'
            ? `${refusalRemedy(r)} Review the changes locally with \`postureops plan\`.`
            : `${refusalRemedy(r)} Review the changes locally with \`postureops plan\`; to apply anyway, run \`postureops apply --force\` deliberately.`,
      };
    }
  }
}

function countErrors(diagnostics: readonly Diagnostic[]): string {
  const n = diagnostics.filter((d) => d.severity === 'error').length;
  return `${n} error${n === 1 ? '' : 's'}`;
}

function diagnosticsOf(failure: Failure): Diagnostic[] {
  return failure.kind === 'invalid' || failure.kind === 'no-plan' ? sortDiagnostics(failure.diagnostics) : [];
}

/**
 * Markdown of a failure: what failed (an alert box, every line of it quoted so its text stays in it),
 * what to do, the problems; a refused plan follows, folded, whole as far as `limit` allows: a reviewer
 * judges its changes before anyone uses `--force`.
 */
export function failureMarkdown(failure: Failure, annotations: number, relative: (file: string) => string, limit = CONTENT_LIMIT, fullPlan = 'see the job summary'): string {
  const t = describeFailure(failure, annotations);
  const problems = diagnosticsOf(failure).filter((d) => d.severity === 'error');
  const lines = problems.slice(0, MAX_LISTED).map((d) => `- ${escapeMd(diagnosticLine({ ...d, ...(d.file ? { file: relative(d.file) } : {}) }))}`);
  if (problems.length > MAX_LISTED) lines.push(`- … ${problems.length - MAX_LISTED} more in the annotations`);
  const text = [
    '## postureops: failed',
    ['> [!CAUTION]', `> **No plan for this commit: ${escapeMd(t.title)}.** Any earlier plan shown here no longer applies.`, `> ${escapeMd(t.what)}`].join('\n'),
    ...(lines.length > 0 ? [`### Problems\n\n${lines.join('\n')}`] : []),
    `**How to fix it:** ${t.fix}`,
  ].join('\n\n');
  if (failure.kind !== 'refused') return text;
  const plan = failure.plan;
  const open = `<details><summary>The refused plan: ${escapeHtml(planCountsText(plan))}</summary>\n\n`;
  const close = '\n\n</details>';
  const room = limit - text.length - open.length - close.length - 2;
  return `${text}\n\n${open}${renderPlanMarkdown(plan, room, { runStats: false, nested: true, fullPlan }).trimEnd()}${close}`;
}

function planCountsText(plan: Plan): string {
  const s = plan.summary;
  return `${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete`;
}

export function failureBody(stamp: Stamp, failure: Failure, annotations: number, relative: (file: string) => string, report?: ReportSeen): Body {
  const content = withReport(stamp, failure.kind === 'refused' ? report : undefined, (limit) => failureMarkdown(failure, annotations, relative, limit, fullPlanAt(stamp)));
  return assemble('comment', stamp, content, false);
}

/** A fork's pull request: validated without secrets, not planned. */
export function forkMarkdown(valid: boolean, resources: number, skipped: readonly string[], annotations: number): string {
  return [
    `## postureops: validated without secrets ${valid ? '(valid)' : '(invalid)'}`,
    '> [!NOTE]\n> This pull request comes from a fork. GitHub gives such runs no secrets, so postureops could not read the service and **made no plan**. It checked the configuration offline (`postureops validate --no-env`).',
    valid
      ? `The configuration is valid: ${resources} resource${resources === 1 ? '' : 's'}.`
      : `The configuration has errors (${annotations} annotation${annotations === 1 ? '' : 's'} on the files of this run).`,
    ...(skipped.length > 0 ? [`Not checked (secrets not available): ${skipped.map((s) => inlineCode(s)).join(', ')}.`] : []),
    'A maintainer sees the plan once the change is on a branch of this repository (or after merging, on the push).',
  ].join('\n\n');
}

export function forkBody(stamp: Stamp, markdown: string): Body {
  return assemble('comment', stamp, markdown, false);
}

export function driftTitle(folder: string): string {
  return `postureops: live state drifted from ${folder === '.' ? 'the configuration' : folder}`;
}

/** What the issue reports of delivery this time (followDelivery): current cells with their first report, and those healed. */
export interface DeliverySeen {
  records: DeliveryRecord[];
  healed: DeliveryRecord[];
}

/**
 * The drift issue: delivery first (cells silent or degraded, what healed since the last check), then
 * configuration drift; the cells reported are kept in a hidden block at the end for the next check.
 */
export function driftBody(stamp: Stamp, plan: Plan, delivery: DeliverySeen = { records: [], healed: [] }): Body {
  const drift = plan.changes.length > 0 || plan.unmanaged.length > 0;
  const intro = [
    `## Drift in ${inlineCode(stamp.folder)}`,
    'The live state of the service (the console) no longer matches the configuration in git (the repository), or alerts it routes do not arrive. Either apply the configuration (re-run the apply workflow) to undo the changes made outside git, or change the files to match the service; repair the destinations the service reports failing. This issue is updated by every drift check and closed when both are gone.',
  ].join('\n\n');
  const health = deliverySection(plan, delivery.records, delivery.healed);
  const block = deliveryBlock(delivery.records);
  const head = health === '' ? intro : `${intro}\n\n${health}`;
  const room = CONTENT_LIMIT - head.length - block.length - 4;
  const rest = drift ? renderDriftMarkdown(plan, room, { fullPlan: fullPlanAt(stamp) }) : 'No configuration drift: the live state matches the repository.';
  const content = `${head}\n\n${rest.trimEnd()}${block === '' ? '' : `\n\n${block}`}`;
  return assemble('drift', stamp, content, plan.summary.delete > 0);
}
