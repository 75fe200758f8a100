// What every run leaves in the job: annotations on the YAML files, the job summary, step outputs.
// Through @actions/core; every text passes the secret guard first, then the CI-log neutraliser (log.ts).

import * as core from '@actions/core';
import * as log from './log.js';
import path from 'node:path';
import type { Diagnostic } from '../model/diagnostics.js';
import { inertText } from '../model/inert.js';
import type { ApplyReport, Plan } from '../model/plan.js';
import type { Guard } from './redact.js';

/** Workspace-relative path of a diagnostic's file (as annotations need). */
export function relativeTo(workspace: string): (file: string) => string {
  return (file) => {
    if (!path.isAbsolute(file)) return file;
    const rel = path.relative(workspace, file);
    return rel.startsWith('..') ? file : rel.split(path.sep).join('/');
  };
}

/** One annotation per distinct diagnostic; returns how many were written. */
export function annotate(diagnostics: readonly Diagnostic[], workspace: string, guard: Guard): number {
  const rel = relativeTo(workspace);
  const seen = new Set<string>();
  for (const d of diagnostics) {
    const file = d.file === undefined ? undefined : rel(d.file);
    const key = JSON.stringify([d.severity, d.code, d.message, file, d.line, d.column, d.field, d.hint]);
    if (seen.has(key)) continue;
    seen.add(key);
    // Each part on its own line: a line break inside a message (file content) is shown, not taken.
    const message = guard([inertText(d.message), d.field ? `at ${inertText(d.field)}` : '', inertText(d.hint ?? '')].filter((s) => s !== '').join('\n'));
    const props: core.AnnotationProperties = { title: d.code, ...(file ? { file } : {}), ...(d.line ? { startLine: d.line } : {}), ...(d.column ? { startColumn: d.column } : {}) };
    if (d.severity === 'error') log.error(message, props);
    else log.warning(message, props);
  }
  return seen.size;
}

/** A rendered plan or report in the job log, folded under one line (a `::group::`) that says what it holds. */
export function folded(title: string, text: string): void {
  core.startGroup(inertText(title));
  try {
    log.info(text);
  } finally {
    core.endGroup();
  }
}

export async function writeSummary(markdown: string, guard: Guard): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    log.info('postureops: GITHUB_STEP_SUMMARY is not set; no job summary');
    return;
  }
  try {
    await core.summary.addRaw(guard(markdown), true).write();
  } catch (err) {
    // The summary is a convenience: the log and the outputs carry the result.
    core.summary.emptyBuffer();
    log.warning(`postureops: no job summary (${err instanceof Error ? err.message : String(err)}); the results are in the log and the outputs`);
  }
}

export type Status = 'planned' | 'applied' | 'apply-failed' | 'refused' | 'branch-refused' | 'invalid' | 'failed' | 'validated' | 'drift' | 'no-drift';

export function setOutputs(mode: string, status: Status, counts: Record<string, number>, extra: Record<string, string> = {}): void {
  core.setOutput('mode', mode);
  core.setOutput('status', status);
  for (const [name, n] of Object.entries(counts)) core.setOutput(`count-${name}`, String(n));
  for (const [name, v] of Object.entries(extra)) core.setOutput(name, v);
}

export function planCounts(plan: Plan): Record<string, number> {
  const s = plan.summary;
  return { create: s.create, update: s.update, replace: s.replace, delete: s.delete, unmanaged: s.unmanaged };
}

export function applyCounts(report: ApplyReport): Record<string, number> {
  const s = report.summary;
  return { create: s.create, update: s.update, replace: s.replace, delete: s.delete, done: s.done, failed: s.failed, skipped: s.skipped };
}

export function planHasChanges(plan: Plan): boolean {
  return plan.changes.length > 0;
}
