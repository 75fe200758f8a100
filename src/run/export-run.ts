// The export run: the live state of the accounts asked for, read whole (rules need the channels to
// name them), turned into a configuration folder whose every document validates. The adapter writes
// it where the user said.

import { documentChecker, misspeltValues } from '../config/document-check.js';
import { exportConfig, type ExportResult, writeExport } from '../ops/export/export.js';
import { envFileText, exportEnvEntries } from '../ops/export/export-env.js';
import type { LiveState } from '../model/live.js';
import type { AccountConfig } from '../model/account.js';
import { KINDS } from '../kinds/index.js';
import { readGroups } from '../ops/budget/preflight.js';
import { type ReadHooks, readLive } from './read.js';
import { Run, type RunSetup } from './run.js';

export interface ExportRequest {
  accounts: AccountConfig[];
  /** Kinds to export; every document kind when absent. */
  kindNames?: string[];
}

export interface Exported {
  result: ExportResult;
  /** What was read: the .env the adapter may write takes the secrets' current values from here. */
  live: LiveState;
}

export interface ExportHooks extends ReadHooks {
  /** After the read, before the export is computed: the CLI stops here on a signal. */
  read?(): void;
}

export async function exportRun(setup: RunSetup, request: ExportRequest, hooks: ExportHooks = {}): Promise<Exported> {
  const run = Run.open(setup);
  try {
    // The lists first (every kind but those read per parent), then, per account, one request per
    // parent of each kind read per parent (a policy's exceptions): counted once the parents are known.
    await run.preflight(readGroups(request.accounts, () => KINDS.filter((k) => !k.perParent)), 'export');
    const beforeParents = async (account: AccountConfig, parents: ReadonlyMap<string, readonly string[]>): Promise<void> => {
      const kinds = KINDS.filter((k) => parents.has(k.kind));
      const groups = readGroups([account], () => kinds, 'list', (_a, kind) => parents.get(kind) ?? []);
      if (groups.length === 0) return;
      const what = kinds.map((k) => `${parents.get(k.kind)?.length ?? 0} ${k.kind} lists, one per ${k.perParent!.parentKind}`).join(', ');
      await run.preflight(groups, `export of ${account.name}: ${what}`);
    };
    const live = await readLive(run, request.accounts, { beforeParents }, hooks);
    hooks.read?.();
    const result = exportConfig(live, { accounts: request.accounts, kindNames: request.kindNames, check: await documentChecker(), misspelt: misspeltValues });
    return { result, live };
  } finally {
    await run.close();
  }
}

/** Writes the export into `dir` all at once (a temp folder renamed into place; `force` replaces a folder that is there). */
export function writeExported(dir: string, result: ExportResult, options: { force?: boolean }): Promise<void> {
  return writeExport(dir, result, options);
}

/** The .env file of the exported secrets' current values: its text, and how many hold a value or a placeholder. */
export function exportEnvFile(exported: Exported): { text: string; unwritable: string[]; clear: number; writeOnly: number } {
  const entries = exportEnvEntries(exported.live, exported.result.secrets);
  const { text, unwritable } = envFileText(entries);
  const clear = entries.filter((e) => e.value !== undefined).length;
  return { text, unwritable, clear, writeOnly: entries.length - clear };
}
