// The routing report of a pull request (`routes --format html --base <the pull request's base>`):
// computed offline from the checkout and the base commit (no request to the service), written to the
// job's RUNNER_TEMP and handed to the workflow as the `routing-report` output, for its
// actions/upload-artifact step (the Action does not bundle @actions/artifact: its storage client
// would multiply the bundle). The comment links the run's page, whose artifacts list holds it
// (bodies.ts, routingReportLine).
// Best effort: a report that cannot be made is a log line, never a failed plan.

import * as core from '@actions/core';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { routingAtCommit } from '../config/at-commit.js';
import { configurationRouting } from '../config/routing.js';
import type { DesiredState } from '../model/account.js';
import { type ReadValues, renderMasked } from '../model/read-values.js';
import { diffRouting } from '../model/routing.js';
import { renderRoutesHtml } from '../render/routing-html.js';
import { fetchCommit, hasCommit } from '../util/git.js';
import type { Settings } from './settings.js';

export interface RoutingReport {
  /** The HTML file (absolute). */
  path: string;
  /** Cells whose channels differ from the base commit; undefined when there was no base to compare with. */
  changedCells?: number;
}

/** `postureops-routing-posture.html` for the folder `posture` (`.`: the workspace). */
export function reportFileName(folder: string): string {
  const slug = folder === '.' ? 'root' : folder.replace(/[^A-Za-z0-9._-]+/g, '-');
  return `postureops-routing-${slug}.html`;
}

/**
 * `secrets`: the run's read values; what the base commit's files read joins them (`onRead`, which also
 * registers it with the runner), and the page is made from masked data.
 */
export async function writeRoutingReport(
  s: Settings,
  desired: DesiredState,
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
  secrets: { onRead: (values: readonly string[]) => void; values: ReadValues },
): Promise<RoutingReport | undefined> {
  try {
    const accounts = desired.root.accounts.map((a) => a.name).filter((a) => s.accounts.length === 0 || s.accounts.includes(a));
    const map = configurationRouting(desired, accounts);
    let base: { ref: string; commit: string; map: typeof map } | undefined;
    if (s.baseSha) {
      if (!(await hasCommit(s.dir, s.baseSha))) await fetchCommit(s.dir, s.baseSha).catch(() => undefined);
      const at = await routingAtCommit(s.dir, s.baseSha, accounts, { env, onRead: secrets.onRead }, 'routing report base').catch((err: unknown) => {
        say(`postureops: routing report: the base commit ${s.baseSha!.slice(0, 7)} could not be read (${err instanceof Error ? err.message : String(err)}); the report shows no changes`);
        return undefined;
      });
      if (at?.map) base = { ref: "the pull request's base", commit: at.commit, map: at.map };
      else if (at) say(`postureops: routing report: the configuration at the base commit has errors; the report shows no changes`);
    }
    const dir = env.RUNNER_TEMP || tmpdir();
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, reportFileName(s.folder));
    const title = s.folder === '.' ? s.repo.repo : s.folder;
    await writeFile(file, renderMasked(secrets.values, { map, base }, (shown) => renderRoutesHtml(shown.map, { title, ...(shown.base ? { base: shown.base } : {}) })));
    core.setOutput('routing-report', file);
    const report: RoutingReport = { path: file, ...(base ? { changedCells: diffRouting(base.map, map).length } : {}) };
    say(`postureops: routing report written to ${file}${report.changedCells !== undefined ? ` (${report.changedCells} cell(s) change against the base)` : ''}`);
    return report;
  } catch (err) {
    say(`postureops: routing report not written: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}
