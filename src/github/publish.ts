// What the Action does with a plan or an apply report the CLI has computed: annotations on the
// files, the job summary, step outputs and (on pull requests) one comment kept up to date.

import { isAbsolute, relative } from 'node:path';
import type { Diagnostic } from '../model/diagnostics.js';
import type { ApplyReport, Plan } from '../model/plan.js';
import { renderDiagnostics } from '../render/diagnostics.js';
import { APPLY_MARKER, PLAN_MARKER, renderApplyReport, renderPlan } from '../render/index.js';
import { upsertComment, type CommentOutcome } from './comments.js';
import type { GithubContext } from './context.js';
import { markerVariables, redactSecrets } from './redact.js';
import { appendOutputs, appendSummary } from './workflow-files.js';

export interface PublishOutcome {
  comment: CommentOutcome;
  annotations: number;
  summaryWritten: boolean;
  outputsWritten: boolean;
}

/** Annotations for the diagnostics; paths made relative to the workspace, duplicates dropped. */
export function annotationLines(ctx: Pick<GithubContext, 'workspace'>, diagnostics: readonly Diagnostic[]): string[] {
  const seen = new Set<string>();
  const unique: Diagnostic[] = [];
  for (const d of diagnostics) {
    const file = d.file && isAbsolute(d.file) && ctx.workspace && !relative(ctx.workspace, d.file).startsWith('..') ? relative(ctx.workspace, d.file) : d.file;
    const item = { ...d, ...(file !== undefined ? { file } : {}) };
    const key = JSON.stringify([item.severity, item.code, item.message, item.file, item.line, item.column, item.field, item.hint]);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(item);
  }
  return renderDiagnostics(unique, 'github', { color: false })
    .split('\n')
    .filter((l) => l !== '');
}

/** Annotations for configuration problems, and a short job summary; used when there is no plan. */
export async function publishDiagnostics(ctx: GithubContext, diagnostics: readonly Diagnostic[]): Promise<PublishOutcome> {
  const lines = annotationLines(ctx, diagnostics);
  lines.forEach((l) => ctx.command(l));
  let summaryWritten = false;
  if (ctx.stepSummaryPath && diagnostics.length > 0) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const md = `## postureops\n\nThe configuration has ${errors} error${errors === 1 ? '' : 's'} and ${diagnostics.length - errors} warning${diagnostics.length - errors === 1 ? '' : 's'}; see the annotations on the files.\n`;
    summaryWritten = writeSummary(ctx, md);
  }
  return { comment: 'skipped', annotations: lines.length, summaryWritten, outputsWritten: false };
}

export async function publishPlan(ctx: GithubContext, plan: Plan, diagnostics: readonly Diagnostic[]): Promise<PublishOutcome> {
  const lines = annotationLines(ctx, [...diagnostics, ...plan.diagnostics]);
  lines.forEach((l) => ctx.command(l));

  const variables = markerVariables(plan.changes.flatMap((c) => [c.before, c.after, ...(c.children ?? []).map((x) => x.after)]));
  const markdown = guard(ctx, renderPlan(plan, 'markdown', { color: false }), variables);
  const summaryWritten = writeSummary(ctx, markdown);
  const s = plan.summary;
  const outputsWritten = writeOutputs(ctx, {
    mode: 'plan',
    'has-changes': String(s.create + s.update + s.replace + s.delete > 0),
    refused: String(plan.refusal !== undefined),
    summary: JSON.stringify(s),
  });
  const comment = await upsertComment(ctx, PLAN_MARKER, markdown);
  return { comment, annotations: lines.length, summaryWritten, outputsWritten };
}

export async function publishApply(ctx: GithubContext, report: ApplyReport): Promise<PublishOutcome> {
  const markdown = guard(ctx, renderApplyReport(report, 'markdown', { color: false }), []);
  const summaryWritten = writeSummary(ctx, markdown);
  const s = report.summary;
  const outputsWritten = writeOutputs(ctx, {
    mode: 'apply',
    'has-changes': String(s.done > 0),
    failed: String(s.failed > 0),
    refused: 'false',
    summary: JSON.stringify(s),
  });
  const comment = await upsertComment(ctx, APPLY_MARKER, markdown);
  return { comment, annotations: 0, summaryWritten, outputsWritten };
}

function guard(ctx: GithubContext, text: string, variables: readonly string[]): string {
  const { text: safe, found } = redactSecrets(text, ctx.env, variables);
  if (found.length > 0) ctx.log(`postureops: the value of ${found.join(', ')} appeared in the report and was masked`);
  return safe;
}

function writeSummary(ctx: GithubContext, markdown: string): boolean {
  if (!ctx.stepSummaryPath) {
    ctx.log('postureops: GITHUB_STEP_SUMMARY is not set; no job summary');
    return false;
  }
  try {
    appendSummary(ctx.stepSummaryPath, markdown);
    return true;
  } catch (err) {
    ctx.log(`postureops: cannot write the job summary: ${(err as Error).message}`);
    return false;
  }
}

function writeOutputs(ctx: GithubContext, outputs: Record<string, string>): boolean {
  if (!ctx.outputPath) {
    ctx.log('postureops: GITHUB_OUTPUT is not set; no step outputs');
    return false;
  }
  try {
    appendOutputs(ctx.outputPath, outputs);
    return true;
  } catch (err) {
    ctx.log(`postureops: cannot write the step outputs: ${(err as Error).message}`);
    return false;
  }
}
