// The one place postureops runs git (`--changed-since`, the Action's default ranges): `git` through
// execFile, no shell, in the repository of the configuration folder. Read-only, except
// `fetchCommit`, which fetches one commit a shallow checkout lacks. `readTree` reads a folder at a commit (routes --base).

import { execFile, spawn } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** A problem with git or the ref, in words for the user (no stack trace, exit 1). */
export class GitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitError';
  }
}

/** A path changed between the commit and the working tree, relative to the configuration folder ('/' separated). */
export interface ChangedPath {
  path: string;
  /** git's status letter (A, M, D, T...); `?` for an untracked file. */
  status: string;
}

export interface GitChanges {
  /** The commit `ref` resolved to (40 hex digits). */
  commit: string;
  /** Changed files below the folder: staged, unstaged, untracked (not ignored) and deleted. */
  changed: ChangedPath[];
  /** The text of a file (relative to the folder) at the commit; undefined when it did not exist there. */
  readAtCommit(relPath: string): Promise<string | undefined>;
}

interface Run {
  stdout: string;
  stderr: string;
}

function git(args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } }, (err, stdout, stderr) => {
      if (!err) return resolve({ stdout, stderr });
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        return reject(new GitError('git is not installed or not on PATH (it is needed to find what changed)'));
      }
      const e = err as Error & { stderr?: string };
      reject(Object.assign(new GitError((stderr || e.message).trim().split('\n')[0] ?? 'git failed'), { stderr }));
    });
  });
}

/** The top of the work tree holding `dir`, and `dir` relative to it. */
async function locate(dir: string, what: string): Promise<{ top: string; rel: string }> {
  const real = await realpath(dir).catch(() => path.resolve(dir));
  let top: string;
  try {
    top = (await git(['rev-parse', '--show-toplevel'], real)).stdout.trim();
  } catch (err) {
    if (err instanceof GitError && /not installed/.test(err.message)) throw err;
    throw new GitError(`${what}: ${dir} is not in a git repository (${err instanceof Error ? err.message : String(err)})`);
  }
  const rel = path.relative(await realpath(top).catch(() => top), real).split(path.sep).join('/');
  return { top, rel };
}

/** `ref` as a commit, or a GitError saying that it is unknown. */
export async function resolveCommit(dir: string, ref: string, what = '--changed-since'): Promise<string> {
  if (ref.trim() === '' || ref.startsWith('-')) throw new GitError(`${what} ${JSON.stringify(ref)}: expected a commit, branch or tag`);
  const { top } = await locate(dir, what);
  try {
    return (await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], top)).stdout.trim();
  } catch {
    throw new GitError(
      `${what} ${ref}: no such commit in the repository at ${top} (a shallow clone may lack it: fetch it, e.g. git fetch --depth=1 origin ${ref}, or check out with fetch-depth: 0)`,
    );
  }
}

/** Whether the commit is present (a shallow checkout may lack the base of a pull request). */
export async function hasCommit(dir: string, sha: string): Promise<boolean> {
  const { top } = await locate(dir, 'git');
  return git(['cat-file', '-e', `${sha}^{commit}`], top).then(
    () => true,
    () => false,
  );
}

/** `git fetch --depth=1 origin SHA`: the one commit a shallow checkout needs to compare with. */
export async function fetchCommit(dir: string, sha: string): Promise<void> {
  const { top } = await locate(dir, 'git');
  await git(['fetch', '--no-tags', '--quiet', '--depth=1', 'origin', sha], top);
}

function splitZ(text: string): string[] {
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/** What changed below `dir` between `ref` and the working tree. */
export async function gitChanges(dir: string, ref: string): Promise<GitChanges> {
  const commit = await resolveCommit(dir, ref);
  const { top, rel } = await locate(dir, '--changed-since');
  const spec = rel === '' ? '.' : rel;
  const [diff, untracked] = await Promise.all([
    git(['diff', '--name-status', '-z', '--no-renames', '--no-ext-diff', commit, '--', spec], top),
    git(['ls-files', '--others', '--exclude-standard', '-z', '--', spec], top),
  ]);
  const toDir = (p: string): string | undefined => {
    if (rel === '') return p;
    return p.startsWith(`${rel}/`) ? p.slice(rel.length + 1) : undefined;
  };
  const changed: ChangedPath[] = [];
  const d = splitZ(diff.stdout);
  for (let i = 0; i + 1 < d.length; i += 2) {
    const p = toDir(d[i + 1]);
    if (p !== undefined) changed.push({ path: p, status: d[i].charAt(0) });
  }
  for (const file of splitZ(untracked.stdout)) {
    const p = toDir(file);
    if (p !== undefined) changed.push({ path: p, status: '?' });
  }
  return {
    commit,
    changed,
    async readAtCommit(relPath: string): Promise<string | undefined> {
      const full = rel === '' ? relPath : `${rel}/${relPath}`;
      try {
        return (await git(['show', `${commit}:${full}`], top)).stdout;
      } catch {
        return undefined;
      }
    },
  };
}

/** A file of the tree at a commit: its path relative to the folder ('/' separated) and its bytes. */
export interface TreeFile {
  path: string;
  data: Buffer;
}

/** git with bytes on stdin, bytes back (cat-file --batch). */
function gitBytes(args: readonly string[], cwd: string, input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    child.on('error', (e) => reject(new GitError((e as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not installed or not on PATH' : e.message)));
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new GitError(err.trim().split('\n')[0] || `git ${args[0]} failed`))));
    child.stdin.end(input);
  });
}

/**
 * The regular files below `dir` as they were at `ref` (symbolic links and submodules left out): two
 * git processes whatever the count (ls-tree, then one cat-file --batch). Read-only.
 */
export async function readTree(dir: string, ref: string, what = '--base'): Promise<{ commit: string; files: TreeFile[] }> {
  const commit = await resolveCommit(dir, ref, what);
  const { top, rel } = await locate(dir, what);
  const listing = await git(['ls-tree', '-r', '-z', '--full-tree', commit, '--', rel === '' ? '.' : rel], top);
  const entries: { path: string; sha: string }[] = [];
  for (const line of splitZ(listing.stdout)) {
    // `<mode> SP <type> SP <sha> TAB <path>`
    const tab = line.indexOf('\t');
    const [mode, type, sha] = line.slice(0, tab).split(' ');
    const full = line.slice(tab + 1);
    if (type !== 'blob' || mode === '120000') continue;
    const p = rel === '' ? full : full.startsWith(`${rel}/`) ? full.slice(rel.length + 1) : undefined;
    if (p !== undefined) entries.push({ path: p, sha });
  }
  if (entries.length === 0) return { commit, files: [] };
  const batch = await gitBytes(['cat-file', '--batch'], top, entries.map((e) => e.sha).join('\n') + '\n');
  const files: TreeFile[] = [];
  let at = 0;
  for (const e of entries) {
    // `<sha> SP <type> SP <size> LF <contents> LF`
    const nl = batch.indexOf(0x0a, at);
    const size = Number(batch.subarray(at, nl).toString('latin1').split(' ')[2]);
    if (nl < 0 || !Number.isInteger(size)) throw new GitError(`git cat-file: unexpected answer for ${e.path}`);
    files.push({ path: e.path, data: batch.subarray(nl + 1, nl + 1 + size) });
    at = nl + 1 + size + 1;
  }
  return { commit, files };
}
