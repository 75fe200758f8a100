// Writes an export all at once: everything goes into a sibling temp folder that is renamed into
// place, so the target is either what it was or the complete export, never half of one.

import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

export interface WriteExportOptions {
  /** Replace a folder that is not empty. */
  force?: boolean;
}

interface Files {
  files: readonly { path: string; content: string }[];
}

export async function writeExport(dir: string, result: Files, options: WriteExportOptions = {}): Promise<void> {
  const target = resolve(dir);
  const parent = dirname(target);
  if (parent === target) throw new Error(`cannot export to ${target}: choose a folder below it`);
  for (const file of result.files) checkRelative(file.path, target);

  const state = await targetState(target);
  if (state === 'full' && !options.force) {
    throw new Error(`cannot export to ${target}: the folder is not empty (use --force to replace its contents)`);
  }
  try {
    await mkdir(parent, { recursive: true });
  } catch (err) {
    throw new Error(`cannot export to ${target}: cannot create ${parent}: ${describe(err)}`);
  }

  const sibling = (what: string) => join(parent, `.${basename(target)}.postureops-${what}-${randomBytes(6).toString('hex')}`);
  const temp = sibling('tmp');
  let aside: string | undefined;
  try {
    // Not mkdtemp: its 0700 would become the export's mode; mkdir honours the umask.
    await mkdir(temp);
    for (const file of result.files) {
      const path = join(temp, ...file.path.split('/'));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content, { flag: 'wx' });
    }
    if (state !== 'absent') {
      aside = sibling('old');
      await rename(target, aside);
    }
    try {
      await rename(temp, target);
    } catch (err) {
      if (aside !== undefined) {
        const old = aside;
        aside = undefined;
        await rename(old, target).catch((restore: unknown) => {
          throw new Error(`${describe(err)}; restoring the previous contents failed too (they are in ${old}): ${describe(restore)}`);
        });
      }
      throw err;
    }
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw new Error(`cannot export to ${target}: ${describe(err)}`);
  }
  if (aside !== undefined) {
    try {
      await rm(aside, { recursive: true, force: true });
    } catch (err) {
      throw new Error(`exported to ${target}, but the previous contents could not be removed from ${aside}: ${describe(err)}`);
    }
  }
}

async function targetState(target: string): Promise<'absent' | 'empty' | 'full'> {
  let isDir: boolean;
  try {
    isDir = (await lstat(target)).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw new Error(`cannot export to ${target}: ${describe(err)}`);
  }
  if (!isDir) throw new Error(`cannot export to ${target}: it exists and is not a folder`);
  try {
    return (await readdir(target)).length === 0 ? 'empty' : 'full';
  } catch (err) {
    throw new Error(`cannot export to ${target}: ${describe(err)}`);
  }
}

/** File paths come from exportConfig; still, none may point outside the folder. */
function checkRelative(path: string, target: string): void {
  const segments = path.split('/');
  if (path === '' || path.startsWith('/') || path.includes('\\') || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new Error(`cannot export to ${target}: invalid file path "${path}" in the export`);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
