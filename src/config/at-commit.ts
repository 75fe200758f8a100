// The configuration as it was at a git commit (`routes --base REF`, the Action's routing report
// against a pull request's base): the folder's files at the commit, read with git into a private
// temporary folder, loaded there like any repository, and the folder removed. Nothing of the work
// tree is touched; diagnostics name files as `REF:path`.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readTree } from '../util/git.js';
import { loadConfig } from './load.js';
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
