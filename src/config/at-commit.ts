// The configuration as it was at a git commit (`routes --base REF`, the Action's routing report
// against a pull request's base): the folder's files at the commit, read with git into a private
// temporary folder, loaded there like any repository, and the folder removed. Nothing of the work
// tree is touched; diagnostics name files as `REF:path`.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hasErrors, type Diagnostic } from '../model/diagnostics.js';
import type { RoutingMap } from '../model/routing.js';
import { readTree } from '../util/git.js';
import { ENV_SKIPPED } from './interpolate.js';
import { loadConfig } from './load.js';
import { configurationRouting } from './routing.js';
import type { LoadOptions, LoadResult } from './types.js';

export async function loadConfigAtCommit(dir: string, ref: string, options: Omit<LoadOptions, 'cwd'>, what = '--base'): Promise<{ commit: string; result: LoadResult }> {
  const { commit, files } = await readTree(dir, ref, what);
  const tmp = await mkdtemp(path.join(tmpdir(), 'postureops-base-'));
  try {
    for (const f of files) {
      const target = path.join(tmp, ...f.path.split('/'));
      // git paths never hold `..`; kept inside the folder all the same.
      if (!target.startsWith(tmp + path.sep)) continue;
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, f.data, { mode: 0o600 });
    }
    const result = await loadConfig(tmp, { ...options, cwd: tmp, parallel: false });
    const diagnostics = result.diagnostics.map((d) => (d.file !== undefined ? { ...d, file: `${ref}:${d.file}` } : d));
    return { commit, result: { ...result, diagnostics } };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The routing the configuration had at a commit: the map of `accounts` it declared then (secrets not needed), or its errors. */
export async function routingAtCommit(
  dir: string,
  ref: string,
  accounts: readonly string[],
  load: Pick<LoadOptions, 'env' | 'onRead'>,
  what = '--base',
): Promise<{ commit: string; map?: RoutingMap; errors: Diagnostic[] }> {
  // onRead: a value the base's files read is a secret of this run too.
  const { commit, result } = await loadConfigAtCommit(dir, ref, { ...load, missingEnv: 'skip' }, what);
  const errors = result.diagnostics.filter((d) => d.code !== ENV_SKIPPED && d.severity === 'error');
  if (!result.state || hasErrors(errors)) return { commit, errors };
  const declared = new Set(result.state.root.accounts.map((a) => a.name));
  return { commit, map: configurationRouting(result.state, accounts.filter((a) => declared.has(a))), errors: [] };
}
