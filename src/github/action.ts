// One run of the Action: an apply off the reviewed branches refused, secrets masked, then by mode. A
// pull request gets a plan comment (or, from a fork, an offline validation); a push to the default
// branch applies; a schedule checks for drift and keeps one issue per folder. Any failure replaces the comment with what failed and how to
// fix it, so a pull request never shows a plan older than its last commit.

import * as core from '@actions/core';
import * as log from './log.js';
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ENV_SKIPPED } from '../config/interpolate.js';
import { checkRouting } from '../config/routing.js';
import { mergePlans, MergeError, type ShardPlan } from '../plan/saved/merge-plans.js';
import { planKeyFrom, PlanKeyError } from '../plan/saved/plan-file.js';
import { loadPlan, savePlan } from '../run/plan-files.js';
import { DiagnosticsError, hasErrors } from '../model/diagnostics.js';
import type { AppliedRecordReport, Plan } from '../model/plan.js';
import { renderApplyReport, renderPlan, renderPlanMarkdown } from '../render/index.js';
import { inlineCode } from '../render/markdown.js';
import { escapeMd, inertText } from '../model/inert.js';
import { applyBody, type Body, SUMMARY_LIMIT, describeFailure, driftBody, driftTitle, failureBody, failureMarkdown, forkBody, forkMarkdown, planBody, type Stamp } from './bodies.js';
import { closeDriftIssue, createOctokit, findDriftIssue, type Octokit, statusOf, syncDeleteLabel, upsertComment, upsertDriftIssue } from './github-api.js';
import { deliveryNow, followDelivery, readDeliveryBlock } from './delivery.js';
import { changedSince, changedSinceApplied, headCommit, LAST_APPLIED } from './changes.js';
import { applyPlan, readyForApply, type Failure, load, loadedState, planAgainstService, type Planned, RunFailure } from './pipeline.js';
import { type Guard, secretGuard } from './redact.js';
import { annotate, applyCounts, folded, planCounts, planHasChanges, relativeTo, setOutputs, type Status, writeSummary } from './report.js';
import { maskCredentials, maskForms, registerValues } from './secrets.js';
import { ReadValues } from '../model/read-values.js';
import { readSettings, type Settings } from './settings.js';
import { type RoutingReport, writeRoutingReport } from './routing-report.js';
import type { DesiredState } from '../model/account.js';

interface Run {
  s: Settings;
  env: NodeJS.ProcessEnv;
  /** The values the configuration read (registered with the runner as read): masked in every output's data. */
  secrets: ReadValues;
  /** The net on every text that leaves for GitHub: the read values, then the credentials. */
  guard: Guard;
  stamp: Stamp;
  octokit?: Octokit;
  /** The checkout's commit: what an apply records as each converged account's last applied commit. */
  head?: string;
  /** A pull request's routing report (HTML, for the workflow's upload step), for the comment to link. */
  routingReport?: RoutingReport;
}

/** What the loader reads: registered with the runner and remembered for masking, as it is read. */
function remember(run: Run): (values: readonly string[]) => void {
  return (values) => {
    registerValues(values);
    run.secrets.add(values);
  };
}

function say(run: Run, line: string): void {
  log.info(run.guard(line));
}

/** `postureops: plan: 2 to create, ...` (the fold's title: what the plan holds, at a glance). */
function planTitle(plan: Plan): string {
  const t = plan.summary;
  return `postureops: plan: ${t.create} to create, ${t.update} to update, ${t.replace} to replace, ${t.delete} to delete`;
}

/** What the next apply will start from, per account. */
function recordedLine(r: AppliedRecordReport): string {
  const parts = [`recorded commit ${r.commit.slice(0, 7)} as the last applied commit of ${r.accounts.length} account(s)${r.accounts.length > 0 ? ` (${r.accounts.join(', ')})` : ''}`];
  if (r.notRecorded.length > 0) parts.push(`not of ${r.notRecorded.map((n) => `${n.account} (${n.reason})`).join(', ')}: the next apply covers them again`);
  return `postureops: ${parts.join('; ')}`;
}

export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const s = readSettings(env);
  // An apply on a branch nobody reviewed stops here: nothing read, nothing sent, nothing posted.
  if (s.applyRefused !== undefined) return refuseApply(s.applyRefused);
  // Before anything is printed: the credentials; the values the configuration reads are registered
  // by the loader as it reads them (load()).
  const masked = maskCredentials(env);
  const credentials = secretGuard(env, masked, (names) => log.info(`postureops: the value of ${names.join(', ')} appeared in a report and was masked`));
  const secrets = new ReadValues();
  const guard: Guard = (text) => {
    const safe = secrets.maskText(text);
    if (safe !== text) log.info('postureops: the value of a variable the configuration reads appeared in a report and was masked');
    return credentials(safe);
  };
  const run: Run = { s, env, secrets, guard, stamp: { folder: s.folder, sha: s.sha, runUrl: s.runUrl } };
  log.info(guard(`postureops: ${s.fork ? 'validate (pull request from a fork)' : s.mode} of ${s.folder} (event ${s.eventName || 'unknown'})`));

  if (s.fork && s.pullNumber !== undefined) return forkRun(run);
  if (s.mode === 'merge') return mergeRun(run);

  let planned: Planned;
  let desired: DesiredState;
  let annotations = 0;
  try {
    const loaded = await log.group('Load the configuration', () => load(s.dir, env, remember(run)));
    annotations += annotate(loaded.diagnostics, s.workspace, guard);
    desired = loadedState(loaded);
    planned = await log.group('Read the live state and plan', async () => {
      const say = (line: string) => log.info(guard(line));
      run.head = s.changedSince === LAST_APPLIED || s.mode === 'apply' ? await headCommit(s.dir) : undefined;
      const sinceApplied = s.changedSince === LAST_APPLIED && run.head !== undefined ? run.head : undefined;
      if (s.changedSince === LAST_APPLIED && sinceApplied === undefined) say('postureops: not a git checkout: planning every account, and no apply is recorded');
      const changed = s.changedSince !== undefined && s.changedSince !== LAST_APPLIED ? await changedSince(s.dir, desired, s.changedSince, say) : undefined;
      return planAgainstService(desired, env, {
        dir: s.dir,
        accounts: s.accounts,
        ...(changed ? { changed } : {}),
        ...(sinceApplied !== undefined ? { changed: (applied) => changedSinceApplied(s.dir, desired, applied, sinceApplied, say) } : {}),
        ...(s.shard ? { shard: s.shard } : {}),
        targets: s.targets,
        rotate: s.rotate,
        attribute: s.mode === 'drift' && s.attribute,
        ...(s.maxDuration !== undefined ? { maxDurationSeconds: s.maxDuration } : {}),
        onPreflight: say,
        // The lease first: an apply reads the live state it plans from under it.
        lease: s.mode === 'apply',
        // Drift only reports; a plan to review or to apply is rehearsed.
        rehearse: s.rehearse && s.mode !== 'drift',
      });
    });
  } catch (err) {
    if (!(err instanceof RunFailure)) throw err;
    const f = err.failure;
    if (f.kind === 'no-plan') annotations += annotate(f.diagnostics, s.workspace, guard);
    return fail(run, f, annotations);
  }
  try {
    // What every output shows: the plan with the values read masked (apply executes planned.plan).
    const plan = run.secrets.maskData(planned.plan);
    annotations += annotate(plan.diagnostics, s.workspace, guard);
    folded(planTitle(plan), guard(renderPlan(plan, 'text', { color: false })));
    if (s.planOut && !(await savePlanOut(run, plan))) return;
    if (s.mode === 'drift') return await driftRun(run, plan);
    // Apply: the engine refuses a refused plan (applyRun reports it); a plan shows its refusal.
    if (s.mode === 'apply') return await applyRun(run, planned, annotations);
    // Offline, from the checkout and the base commit: no request, whatever the plan says.
    if (s.pullNumber !== undefined && !s.shard) run.routingReport = await writeRoutingReport(s, desired, env, (line) => say(run, line), { onRead: remember(run), values: run.secrets });
    if (plan.refusal) return await fail(run, { kind: 'refused', plan }, annotations);
    await planRun(run, plan);
  } finally {
    await planned.run.close();
  }
}

/** The one line of a refused apply, and outputs that say so (`status: branch-refused`); the step fails whatever fail-on-refusal says. */
function refuseApply(why: string): void {
  setOutputs('apply', 'branch-refused', {}, { 'has-changes': 'false', refused: 'false', failed: 'true', summary: '{}' });
  log.setFailed(`postureops: apply refused: ${why}; nothing was read or sent`);
}

/** A pull request's plan: job summary, outputs, the one comment. */
async function planRun(run: Run, plan: Plan): Promise<void> {
  await writeSummary(withStamp(run, renderPlanMarkdown(plan, SUMMARY_LIMIT)), run.guard);
  setOutputs('plan', 'planned', planCounts(plan), { 'has-changes': String(planHasChanges(plan)), refused: 'false', failed: 'false', summary: JSON.stringify(plan.summary) });
  await comment(run, planBody(run.stamp, plan, run.routingReport));
}

/** `plan-out`: the plan file a shard uploads for the merge job. False when it could not be written (the step failed). */
async function savePlanOut(run: Run, plan: Plan): Promise<boolean> {
  const file = run.s.planOut!;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    // Signed with POSTUREOPS_PLAN_KEY when the workflow sets it: the merge job (and apply --plan) checks it.
    await savePlan(file, plan, planKeyFrom(run.env));
  } catch (err) {
    const message = err instanceof DiagnosticsError ? err.diagnostics.map((d) => d.message).join('; ') : err instanceof Error ? err.message : String(err);
    log.setFailed(run.guard(`postureops: ${message}`));
    return false;
  }
  core.setOutput('plan-file', file);
  log.info(`postureops: plan saved to ${path.relative(run.s.workspace, file) || file}`);
  return true;
}

/** The files `plans` names: a folder's *.json files (sorted), or the files themselves. */
async function planFiles(entries: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const entry of entries) {
    const isDir = await stat(entry).then((st) => st.isDirectory(), () => false);
    if (!isDir) {
      files.push(entry);
      continue;
    }
    const names = (await readdir(entry)).filter((n) => n.endsWith('.json')).sort();
    if (names.length === 0) throw new MergeError(`no plan files (*.json) in ${entry}: did the shard jobs upload their plans?`);
    files.push(...names.map((n) => path.join(entry, n)));
  }
  return files;
}

/**
 * Mode merge: the shards' plan files as one plan, posted as an unsharded run posts it: the plan
 * comment on a pull request, the drift issue otherwise. A missing or foreign shard fails the run.
 */
async function mergeRun(run: Run): Promise<void> {
  const { s, guard } = run;
  let plan: Plan;
  try {
    const inputs: ShardPlan[] = [];
    // With POSTUREOPS_PLAN_KEY set, a shard's plan without a valid MAC fails the merge.
    const key = planKeyFrom(run.env);
    plan = await log.group("Merge the shards' plans", async () => {
      for (const file of await planFiles(s.plans)) inputs.push({ file: path.relative(s.workspace, file) || file, plan: await loadPlan(file, key) });
      return mergePlans(inputs);
    });
  } catch (err) {
    if (!(err instanceof MergeError || err instanceof DiagnosticsError || err instanceof PlanKeyError)) throw err;
    const message = err instanceof DiagnosticsError ? err.diagnostics.map((d) => d.message).join('; ') : err.message;
    return fail(run, { kind: 'merge', message }, 0);
  }
  const annotations = annotate(plan.diagnostics, s.workspace, guard);
  folded(planTitle(plan), guard(renderPlan(plan, 'text', { color: false })));
  if (s.planOut && !(await savePlanOut(run, plan))) return;
  if (s.pullNumber === undefined) return driftRun(run, plan);
  run.routingReport = await offlineRoutingReport(run);
  if (plan.refusal) return fail(run, { kind: 'refused', plan }, annotations);
  await planRun(run, plan);
}

/**
 * The merge job's routing report, as an unsharded run writes it: from the checkout, offline. The job
 * has none of the shards' secrets, and routing reads no variable, so variables are left unread.
 */
async function offlineRoutingReport(run: Run): Promise<RoutingReport | undefined> {
  const loaded = await load(run.s.dir, run.env, remember(run), 'skip');
  if (!loaded.state || hasErrors(loaded.diagnostics.filter((d) => d.code !== ENV_SKIPPED))) {
    say(run, 'postureops: routing report not written: the configuration of this checkout does not load');
    return undefined;
  }
  return writeRoutingReport(run.s, loaded.state, run.env, (line) => say(run, line), { onRead: remember(run), values: run.secrets });
}

function withStamp(run: Run, markdown: string): string {
  const link = run.s.runUrl ? ` · [workflow run](${run.s.runUrl})` : '';
  return `${markdown.trimEnd()}\n\n<sub>folder ${inlineCode(run.s.folder)} · commit ${inlineCode(run.s.sha.slice(0, 7))}${link}</sub>\n`;
}

/** A pull request from a fork: no secrets, a read-only token. Validate offline; pass or fail on that alone. */
async function forkRun(run: Run): Promise<void> {
  const { s, guard } = run;
  const loaded = await log.group('Validate the configuration (no secrets)', () => load(s.dir, run.env, remember(run), 'skip'));
  const skipped = [...new Set(loaded.diagnostics.filter((d) => d.code === ENV_SKIPPED).map((d) => /variable (\S+)/.exec(d.message)?.[1] ?? '?'))].sort();
  const diagnostics = loaded.diagnostics.filter((d) => d.code !== ENV_SKIPPED);
  // Routing requirements and route tests, as `validate` checks them (offline).
  if (loaded.state && !hasErrors(diagnostics)) diagnostics.push(...checkRouting(loaded.state));
  const annotations = annotate(diagnostics, s.workspace, guard);
  const valid = loaded.state !== undefined && !hasErrors(diagnostics);
  log.notice('This pull request comes from a fork: GitHub gives it no secrets, so postureops validated the configuration without them (validate --no-env) and made no plan.', {
    title: 'postureops: not planned',
  });
  if (skipped.length > 0) log.info(`Skipped (--no-env): not checked ${skipped.length} variable(s) that are unset or empty: ${skipped.join(', ')}`);
  const markdown = forkMarkdown(valid, loaded.state?.resources.length ?? 0, skipped, annotations);
  await writeSummary(withStamp(run, markdown), guard);
  setOutputs('validate', valid ? 'validated' : 'invalid', {}, { 'has-changes': 'false', refused: 'false', failed: String(!valid), summary: '{}' });
  await comment(run, forkBody(run.stamp, markdown));
  if (!valid) log.setFailed(`the configuration is invalid (${annotations} annotation${annotations === 1 ? '' : 's'}); validated without secrets, as this pull request comes from a fork`);
}

async function applyRun(run: Run, planned: Planned, annotations: number): Promise<void> {
  const { guard } = run;
  let report;
  // Issued credentials are masked before anything could print them, and handed out in one masked
  // output (`credentials`: JSON keyed by account/Kind/name), for a later step of the same job.
  const issued: Record<string, string> = {};
  const onCredential = (key: string, value: string): void => {
    for (const form of maskForms(value)) core.setSecret(form);
    issued[key] = value;
  };
  try {
    await readyForApply(planned, run.head);
    report = run.secrets.maskData(await log.group(`Apply ${planned.plan.changes.length} change(s)`, () => applyPlan(planned, run.env, onCredential, run.head)));
  } catch (err) {
    if (err instanceof RunFailure) return fail(run, err.failure, annotations);
    return fail(run, { kind: 'service', message: err instanceof Error ? err.message : String(err) }, 0);
  }
  // The changeset in the job log, as the CLI prints it, and in the summary.
  folded(`postureops: apply report: ${report.summary.done} done, ${report.summary.failed} failed, ${report.summary.skipped} skipped`, guard(renderApplyReport(report, 'text', { color: false })));
  if (report.recorded) say(run, recordedLine(report.recorded));
  else if (run.head === undefined) say(run, 'postureops: not a git checkout: no apply was recorded; the next apply plans every account');
  const recorded = report.recorded ? `\n\n${escapeMd(recordedLine(report.recorded).replace(/^postureops: /, ''))}` : '';
  await writeSummary(withStamp(run, renderApplyReport(report, 'markdown', { color: false }).trimEnd() + recorded), guard);
  // A run that stopped early (the service unreachable) did not converge, even with nothing failed.
  const failed = report.summary.failed > 0 || report.stopped !== undefined;
  if (Object.keys(issued).length > 0) core.setOutput('credentials', JSON.stringify(issued));
  setOutputs('apply', failed ? 'apply-failed' : 'applied', applyCounts(report), {
    'has-changes': String(report.summary.done > 0),
    refused: 'false',
    failed: String(failed),
    summary: JSON.stringify(report.summary),
  });
  await comment(run, applyBody(run.stamp, report));
  if (report.stopped) log.setFailed(`${report.stopped.message}: ${report.stopped.notStarted} change(s) not started; see the job summary`);
  else if (failed) log.setFailed(`${report.summary.failed} change(s) failed to apply; see the job summary`);
}

async function driftRun(run: Run, plan: Plan): Promise<void> {
  const { s, guard } = run;
  const drift = planHasChanges(plan);
  const counts = planCounts(plan);
  const now = deliveryNow(plan);
  const outputs = { 'has-changes': String(drift), drift: String(drift), refused: String(plan.refusal !== undefined), failed: 'false', summary: JSON.stringify(plan.summary) };
  if (s.shard) {
    log.info(`postureops: shard ${s.shard.index} of ${s.shard.count}: the drift issue is kept by the merge job (mode: merge)`);
    await writeSummary(withStamp(run, renderPlanMarkdown(plan, SUMMARY_LIMIT)), guard);
    setOutputs('drift', drift || now.length > 0 ? 'drift' : 'no-drift', counts, outputs);
    return;
  }
  const octokit = github(run);
  try {
    // What the issue reported last time, from the issue itself (untrusted: read bounded and checked).
    const open = octokit ? await findDriftIssue(octokit, s.repo, s.folder) : undefined;
    const seen = followDelivery(readDeliveryBlock(open?.body), now, new Date().toISOString());
    if (drift || now.length > 0) {
      const body = driftBody(run.stamp, plan, seen);
      const r = octokit ? await upsertDriftIssue(octokit, s.repo, s.folder, driftTitle(s.folder), { ...body, text: guard(body.text) }) : undefined;
      const where = r ? ` (issue #${r.number}, ${r.outcome})` : '';
      if (now.length > 0) {
        const silent = now.filter((c) => c.state === 'silent').length;
        log.warning(guard(`alerts do not arrive in ${s.folder}: ${now.length} cell(s) with a failing channel, ${silent} silent${where}`), { title: 'postureops: delivery' });
      }
      if (drift) log.warning(`the live state drifted from ${s.folder}: ${plan.summary.create} to create, ${plan.summary.update} to update, ${plan.summary.replace} to replace, ${plan.summary.delete} to delete${where}`, { title: 'postureops: drift' });
      await writeSummary(withStamp(run, renderPlanMarkdown(plan, SUMMARY_LIMIT)), guard);
      setOutputs('drift', 'drift', counts, { ...outputs, ...(r ? { issue: String(r.number) } : {}) });
    } else {
      const healed = seen.healed.length > 0 ? ` Delivery restored in ${seen.healed.length} cell${seen.healed.length === 1 ? '' : 's'} (${seen.healed.map((h) => `${h.account} ${h.cell}`).join(', ')}).` : '';
      const closed = octokit
        ? await closeDriftIssue(octokit, s.repo, s.folder, guard(`The live state matches the configuration again as of commit \`${s.sha.slice(0, 7)}\`${s.runUrl ? ` ([workflow run](${s.runUrl}))` : ''}, and every channel delivers.${escapeMd(healed)} Closing.`))
        : undefined;
      log.info(`postureops: no drift in ${s.folder}${closed !== undefined ? `; closed issue #${closed}` : ''}`);
      await writeSummary(withStamp(run, `## postureops drift check\n\nNo drift: the live state matches \`${s.folder}\`.`), guard);
      setOutputs('drift', 'no-drift', counts, outputs);
    }
  } catch (err) {
    const hint = statusOf(err) === 403 ? ' (give the workflow `permissions: issues: write`)' : '';
    log.setFailed(guard(`could not keep the drift issue of ${s.folder}: ${err instanceof Error ? err.message : String(err)}${hint}`));
  }
}

/** The run failed before a plan could be shown: everywhere the plan would have been, the failure is. */
async function fail(run: Run, given: Failure, annotations: number): Promise<void> {
  const { s, guard } = run;
  const failure = run.secrets.maskData(given);
  const t = describeFailure(failure, annotations);
  // Over max-duration is a refusal, as the CLI's exit 3 says: fail-on-refusal decides the step.
  const refused = failure.kind === 'refused' || failure.kind === 'too-long';
  const plan = failure.kind === 'refused' ? failure.plan : undefined;
  const status: Status = refused ? 'refused' : failure.kind === 'invalid' ? 'invalid' : 'failed';
  const rel = relativeTo(s.workspace);
  await writeSummary(withStamp(run, failureMarkdown(failure, annotations, rel, SUMMARY_LIMIT, 'run `postureops plan` for the full plan')), guard);
  setOutputs(s.mode, status, plan ? planCounts(plan) : {}, { 'has-changes': 'false', refused: String(refused), failed: String(!refused), summary: plan ? JSON.stringify(plan.summary) : '{}' });
  await comment(run, failureBody(run.stamp, failure, annotations, rel, run.routingReport));
  // One annotation line: `what` quotes the service or the files.
  const message = guard(`${t.title}: ${inertText(t.what)} ${t.fix}`);
  if (refused && !s.failOnRefusal) log.notice(`${message} (fail-on-refusal is false, so the step passes)`, { title: 'postureops: refused' });
  else log.setFailed(message);
}

function github(run: Run): Octokit | undefined {
  if (run.octokit) return run.octokit;
  if (!run.s.token) {
    log.warning('no GitHub token (the github-token input is empty): nothing is posted to GitHub; the results are in the job summary', { title: 'postureops' });
    return undefined;
  }
  try {
    run.octokit = createOctokit(run.s.token, run.s.apiUrl);
  } catch (err) {
    log.warning(err instanceof Error ? err.message : String(err), { title: 'postureops' });
    return undefined;
  }
  return run.octokit;
}

/** The pull request's comment for this folder (and its label); a refusal by GitHub falls back to the summary. */
async function comment(run: Run, body: Body): Promise<void> {
  const { s, guard } = run;
  if (s.pullNumber === undefined) return;
  if (s.shard) {
    log.info(`postureops: shard ${s.shard.index} of ${s.shard.count}: no comment of its own (the merge job posts one for every shard)`);
    return;
  }
  if (!s.comment) {
    log.info('postureops: no pull-request comment (the comment input is false)');
    return;
  }
  const octokit = github(run);
  if (!octokit) return;
  const hintFor = (what: string) =>
    s.fork
      ? 'this pull request comes from a fork, so its token is read-only and cannot write; the results are in the job summary'
      : `give the workflow \`permissions: ${what}\`; the results are in the job summary`;
  let anyDeletes = body.deletes;
  try {
    const r = await upsertComment(octokit, s.repo, s.pullNumber, s.folder, { ...body, text: guard(body.text) });
    anyDeletes = r.anyDeletes;
    log.info(r.outcome === 'unchanged' ? `postureops: the comment on #${s.pullNumber} is up to date; not rewritten` : `postureops: ${r.outcome} the comment on #${s.pullNumber}`);
  } catch (err) {
    const status = statusOf(err);
    const hint = status === 403 || status === 404 ? `: ${hintFor('pull-requests: write')}` : '; the results are in the job summary';
    log.warning(guard(`could not comment on pull request #${s.pullNumber}: ${err instanceof Error ? err.message : String(err)}${hint}`), { title: 'postureops' });
    return;
  }
  if (!s.labels || s.fork) return;
  try {
    const r = await syncDeleteLabel(octokit, s.repo, s.pullNumber, anyDeletes);
    if (r !== 'unchanged') log.info(`postureops: ${r} the label postureops:delete on #${s.pullNumber}`);
  } catch (err) {
    const hint = statusOf(err) === 403 ? `: ${hintFor('pull-requests: write')}` : '';
    log.warning(guard(`could not update the label postureops:delete: ${err instanceof Error ? err.message : String(err)}${hint}`), { title: 'postureops' });
  }
}
