// What an export wrote, so that `export --force` replaces a previous export and nothing else. Every
// export writes MARKER_FILE beside its files: the format and version, and per file its path, size and
// SHA-256. `--force` then removes a folder's contents only when every entry in it is that marker, a
// file it lists with the content it lists (unchanged since the export wrote it), or a folder on the
// way to one. Anything else (`.git`, a file the user added or edited, a symlink, a marker that names
// paths export never writes) refuses the export before anything is touched, naming the entry.
//
// The marker is outside input: it is read bounded (size, entries, depth), its paths are checked
// against the names export writes (no `..`, no absolute path, no hidden segment), and the folder is
// walked without following symlinks.

import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Hidden, and not YAML: the loader never reads it as configuration. */
export const MARKER_FILE = '.postureops-export.json';
const FORMAT = 'postureops-export';
const VERSION = 1;

/** Far above any export (a few files per account), far below anything that could hurt to read. */
const MAX_MARKER_BYTES = 1024 * 1024;
const MAX_FILES = 10_000;
const MAX_DEPTH = 8;
/** A segment export writes: `postureops.yaml`, `SECRETS.md`, an account folder, `alert-rules.yaml`. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

interface MarkedFile {
  path: string;
  bytes: number;
  sha256: string;
}

function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The marker of an export of `files`. */
export function markerText(files: readonly { path: string; content: string }[]): string {
  const listed: MarkedFile[] = files.map((f) => ({ path: f.path, bytes: Buffer.byteLength(f.content), sha256: sha256(f.content) }));
  return JSON.stringify({ format: FORMAT, version: VERSION, files: listed }, null, 2) + '\n';
}

/** Why `--force` may not replace the folder's contents: its message names the entry. */
export class NotAnExport extends Error {}

function validPath(path: unknown): path is string {
  if (typeof path !== 'string') return false;
  const segments = path.split('/');
  return segments.length <= MAX_DEPTH && segments.every((s) => SEGMENT.test(s)) && path !== MARKER_FILE;
}

/** The files a marker lists, or why it is not one postureops wrote. */
export function parseMarker(text: string): MarkedFile[] | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 'it is not JSON';
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return 'it is not a JSON object';
  const o = doc as Record<string, unknown>;
  if (o.format !== FORMAT) return `its format is not ${JSON.stringify(FORMAT)}`;
  if (o.version !== VERSION) return `its version is not ${VERSION}`;
  if (!Array.isArray(o.files) || o.files.length > MAX_FILES) return `its files are not a list of at most ${MAX_FILES}`;
  const seen = new Set<string>();
  const files: MarkedFile[] = [];
  for (const [i, f] of o.files.entries()) {
    const e = f !== null && typeof f === 'object' ? (f as Record<string, unknown>) : {};
    if (!validPath(e.path)) return `files[${i}].path is not a path export writes (relative, no "..", no hidden or absolute path)`;
    if (typeof e.bytes !== 'number' || !Number.isSafeInteger(e.bytes) || e.bytes < 0) return `files[${i}].bytes is not a size`;
    if (typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) return `files[${i}].sha256 is not a SHA-256`;
    if (seen.has(e.path)) return `files[${i}].path ${JSON.stringify(e.path)} is listed twice`;
    seen.add(e.path);
    files.push({ path: e.path, bytes: e.bytes, sha256: e.sha256 });
  }
  return files;
}

/** At most `limit` bytes of a regular file (never through a symlink); undefined when it is larger. */
async function readBounded(file: string, limit: number): Promise<Buffer | undefined> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    while (length <= limit) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length > limit ? undefined : buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** `"prod/x.yaml"`, as a message shows an entry. */
const named = (rel: string): string => JSON.stringify(rel);

/**
 * Checks that everything in `target` is a previous export (see the top of this file) and returns its
 * top-level entries, which `--force` may then remove. Throws NotAnExport naming the first entry that
 * is not; reads nothing but the marker and the files it lists.
 */
export async function previousExport(target: string): Promise<string[]> {
  const top = (await readdir(target)).sort();
  if (top.includes('.git')) throw new NotAnExport(`it holds ".git" (a repository): --force replaces only a previous export`);
  if (!top.includes(MARKER_FILE)) {
    const first = top[0];
    throw new NotAnExport(`it holds ${named(first)}, and no ${MARKER_FILE} says an export wrote it: --force replaces only a previous export`);
  }
  const markerPath = join(target, MARKER_FILE);
  const st = await lstat(markerPath);
  if (!st.isFile()) throw new NotAnExport(`its ${MARKER_FILE} is not a file postureops wrote (a ${st.isSymbolicLink() ? 'symlink' : 'folder or device'})`);
  const text = await readBounded(markerPath, MAX_MARKER_BYTES);
  const files = text === undefined ? `it is larger than ${MAX_MARKER_BYTES} bytes` : parseMarker(text.toString('utf8'));
  if (typeof files === 'string') throw new NotAnExport(`its ${MARKER_FILE} is not one postureops wrote (${files}): --force replaces only a previous export`);
  const listed = new Map(files.map((f) => [f.path, f]));
  const folders = new Set(files.flatMap((f) => f.path.split('/').slice(0, -1).map((_, i, s) => s.slice(0, i + 1).join('/'))));
  await walk(target, '', top, listed, folders);
  return top;
}

async function walk(target: string, rel: string, entries: readonly string[], listed: ReadonlyMap<string, MarkedFile>, folders: ReadonlySet<string>): Promise<void> {
  for (const entry of entries) {
    const path = rel === '' ? entry : `${rel}/${entry}`;
    if (path === MARKER_FILE) continue;
    const full = join(target, ...path.split('/'));
    const st = await lstat(full);
    if (st.isSymbolicLink()) throw new NotAnExport(`it holds ${named(path)}, a symlink, which export never writes: --force replaces only a previous export`);
    if (st.isDirectory()) {
      if (!folders.has(path)) throw new NotAnExport(`it holds ${named(path)}, a folder the previous export did not write: --force replaces only a previous export`);
      await walk(target, path, (await readdir(full)).sort(), listed, folders);
      continue;
    }
    const file = listed.get(path);
    if (!st.isFile() || file === undefined) throw new NotAnExport(`it holds ${named(path)}, which the previous export did not write: --force replaces only a previous export`);
    const content = st.size === file.bytes ? await readBounded(full, file.bytes) : undefined;
    if (content === undefined || sha256(content) !== file.sha256) {
      throw new NotAnExport(`${named(path)} changed since the previous export wrote it: --force replaces only what export wrote, unchanged`);
    }
  }
}
