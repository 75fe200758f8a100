// Writes an export so that the target is either what it was or the complete export, never half of
// one. A new folder is built beside the target and renamed into place. An existing folder is never
// replaced (that would change its owner and mode): the files are built in a temp folder inside it
// and then moved in entry by entry, each move atomic; with `force` the old entries, once checked to
// be a previous export and nothing else (export-marker.ts), are first moved aside inside it, and put
// back if anything fails. Messages name the target, never a temp path.

import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { MARKER_FILE, markerText, NotAnExport, previousExport } from './export-marker.js';

export interface WriteExportOptions {
  /** Replace the contents of a folder that holds a previous export, and nothing else. */
  force?: boolean;
}

interface Files {
  files: readonly { path: string; content: string }[];
}

/** Why an export could not be written: callers and tests key on the code, people read the message. */
export type ExportErrorCode =
  /** The target is the file system's root. */
  | 'target-is-root'
  /** The target folder holds files and `force` was not given. */
  | 'target-not-empty'
  /** With `force`: the target holds files a previous export did not write (nothing is removed). */
  | 'target-not-export'
  /** The target exists and is not a folder. */
  | 'target-not-folder'
  /** The target (or its parent) cannot be inspected or read. */
  | 'target-unreadable'
  /** A file path of the export would leave the folder (never made by export itself). */
  | 'invalid-path'
  /** Creating, writing or moving the files failed; the target is as it was, but where the message says otherwise. */
  | 'write-failed';

/** An export that could not be written; the message names the target, never a temp path. */
export class ExportError extends Error {
  constructor(
    readonly code: ExportErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ExportError';
  }
}

/** A failure whose message is already made for people (no errno, no temp path); wrapped as an ExportError. */
class ExportWriteError extends Error {}

export async function writeExport(dir: string, result: Files, options: WriteExportOptions = {}): Promise<void> {
  const target = resolve(dir);
  const parent = dirname(target);
  if (parent === target) throw new ExportError('target-is-root', `cannot export to ${target}: choose a folder below it`);
  for (const file of result.files) checkRelative(file.path, target);
  // The export's files and the marker that lets a later --force replace them (and only them).
  const written: Files = { files: [...result.files, { path: MARKER_FILE, content: markerText(result.files) }] };

  const state = await targetState(target);
  if (state === 'full' && !options.force) {
    throw new ExportError('target-not-empty', `cannot export to ${target}: the folder is not empty (use --force to replace a previous export)`);
  }
  // Checked before anything is written: what --force may remove, and nothing else.
  const old = state === 'full' ? await replaceable(target) : [];
  try {
    if (state === 'absent') await writeNewFolder(target, written);
    else await writeInPlace(target, written, old);
  } catch (err) {
    throw new ExportError('write-failed', `cannot export to ${target}: ${err instanceof ExportWriteError ? err.message : reason(err)}`);
  }
}

/** A folder that does not exist yet: built beside it (mode from the umask), renamed into place. */
async function writeNewFolder(target: string, result: Files): Promise<void> {
  const parent = dirname(target);
  try {
    await mkdir(parent, { recursive: true });
  } catch (err) {
    throw new ExportWriteError(`cannot create ${parent} (${reason(err)}): ${nextStep(err, parent)}`);
  }
  const temp = join(parent, `.${basename(target)}.postureops-tmp-${randomBytes(6).toString('hex')}`);
  try {
    // Not mkdtemp: its 0700 would become the export's mode; mkdir honours the umask.
    await mkdir(temp);
  } catch (err) {
    throw new ExportWriteError(`cannot create it in ${parent} (${reason(err)}): ${nextStep(err, parent)}; nothing was written`);
  }
  try {
    await writeFiles(temp, result);
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { recursive: true, force: true });
    throw err;
  }
}

/** The entries of `target` a --force may remove: a previous export's, all of them; else it refuses, naming one. */
async function replaceable(target: string): Promise<string[]> {
  try {
    return await previousExport(target);
  } catch (err) {
    if (err instanceof NotAnExport) throw new ExportError('target-not-export', `cannot export to ${target}: ${err.message}; nothing was written or removed (choose another --out, or empty the folder yourself)`);
    throw new ExportError('target-unreadable', `cannot export to ${target}: the folder cannot be checked (${reason(err)}): ${nextStep(err, target)}; nothing was written or removed`);
  }
}

/** An existing folder keeps its owner and mode: only its contents change; `old` (checked) are set aside, then removed. */
async function writeInPlace(target: string, result: Files, old: readonly string[]): Promise<void> {
  const replace = old.length > 0;
  const suffix = randomBytes(6).toString('hex');
  const temp = join(target, `.postureops-tmp-${suffix}`);
  try {
    await mkdir(temp);
  } catch (err) {
    const what = denied(err) ? 'the folder is not writable by this user' : 'cannot write into the folder';
    throw new ExportWriteError(`${what} (${reason(err)}): ${nextStep(err, target)}; nothing was written`);
  }
  const aside = join(target, `.postureops-old-${suffix}`);
  const setAside: string[] = [];
  const movedIn: string[] = [];
  try {
    await writeFiles(temp, result);
    if (replace) {
      await mkdir(aside);
      for (const entry of old) {
        await rename(join(target, entry), join(aside, entry));
        setAside.push(entry);
      }
    }
    for (const entry of await readdir(temp)) {
      await rename(join(temp, entry), join(target, entry));
      movedIn.push(entry);
    }
  } catch (err) {
    // Back to what it was: our entries out, the old ones in.
    for (const entry of movedIn) await rm(join(target, entry), { recursive: true, force: true }).catch(() => undefined);
    const stuck: string[] = [];
    for (const entry of setAside) await rename(join(aside, entry), join(target, entry)).catch(() => stuck.push(entry));
    await rm(temp, { recursive: true, force: true }).catch(() => undefined);
    if (stuck.length > 0) {
      throw new ExportWriteError(`${reason(err)}; restoring the previous contents failed too: ${stuck.join(', ')} are in ${aside}`);
    }
    await rm(aside, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
  await rm(temp, { recursive: true, force: true });
  if (replace) {
    try {
      await rm(aside, { recursive: true, force: true });
    } catch (err) {
      throw new ExportWriteError(`exported, but the previous contents could not be removed from ${aside} (${reason(err)})`);
    }
  }
}

async function writeFiles(root: string, result: Files): Promise<void> {
  for (const file of result.files) {
    const path = join(root, ...file.path.split('/'));
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content, { flag: 'wx' });
    } catch (err) {
      throw new ExportWriteError(`cannot write ${JSON.stringify(file.path)} (${reason(err)}); nothing was written`);
    }
  }
}

async function targetState(target: string): Promise<'absent' | 'empty' | 'full'> {
  let isDir: boolean;
  try {
    isDir = (await lstat(target)).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw new ExportError('target-unreadable', `cannot export to ${target}: ${reason(err)}: ${nextStep(err, dirname(target))}`);
  }
  if (!isDir) throw new ExportError('target-not-folder', `cannot export to ${target}: it exists and is not a folder`);
  try {
    return (await readdir(target)).length === 0 ? 'empty' : 'full';
  } catch (err) {
    throw new ExportError('target-unreadable', `cannot export to ${target}: the folder cannot be read (${reason(err)}): ${nextStep(err, target)}`);
  }
}

/** File paths come from exportConfig; still, none may point outside the folder (or be the marker). */
function checkRelative(path: string, target: string): void {
  const segments = path.split('/');
  if (path === '' || path === MARKER_FILE || path.startsWith('/') || path.includes('\\') || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new ExportError('invalid-path', `cannot export to ${target}: invalid file path "${path}" in the export`);
  }
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENAMETOOLONG: 'the path is too long',
  EEXIST: 'a file of that name appeared meanwhile',
};

/** The system's reason in words, never its message (which names the internal temp path). */
function reason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return REASONS[code] ?? code;
  return 'unexpected error';
}

function denied(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

function nextStep(err: unknown, folder: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (denied(err)) return `choose another --out, or ask the owner of ${folder} for write access`;
  if (code === 'EROFS') return 'choose an --out on a writable file system';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'free some space, or choose another --out';
  return 'choose another --out';
}
