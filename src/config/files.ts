// Finding and reading configuration files: only what lies in the tree, only text, only sane sizes.

import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic } from '../model/diagnostics.js';

/** Files above this size are refused without being read or parsed. */
export const MAX_FILE_BYTES = 1024 * 1024;
export const ROOT_FILE_NAMES = ['postureops.yaml', 'postureops.yml'];
const SKIPPED_DIRS = new Set(['node_modules']);

/** Path as editors and GitHub annotations want it: relative to `cwd` when below it, else absolute. */
export function displayPath(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : abs;
}

function isYamlName(name: string): boolean {
  return /\.ya?ml$/i.test(name);
}

function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Every `*.yaml` / `*.yml` below `root` except the root files, sorted. Hidden entries, node_modules and
 * folders with a root file of their own are skipped; symlinks are followed only within the tree.
 */
export async function findDocumentFiles(root: string, cwd: string, diagnostics: Diagnostic[]): Promise<string[]> {
  const realRoot = await realpath(root);
  const found: string[] = [];
  // Real paths already visited: a folder or file reached twice (through links) is read once.
  const seen = new Set<string>();
  const rootFiles = new Set(ROOT_FILE_NAMES.map((n) => path.join(root, n)));

  const walk = async (dir: string, realDir: string): Promise<void> => {
    if (seen.has(realDir)) return;
    seen.add(realDir);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      diagnostics.push(unreadable(displayPath(dir, cwd), err));
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // A folder with its own root file is another configuration (e.g. examples inside a repository).
    if (dir !== root && entries.some((e) => ROOT_FILE_NAMES.includes(e.name))) {
      diagnostics.push({
        severity: 'warning',
        code: 'nested-root-skipped',
        message: 'folder has its own postureops.yaml: it is a separate configuration and is not loaded with this one',
        file: displayPath(dir, cwd),
        hint: 'validate it on its own, or remove its postureops.yaml to merge it into this configuration',
      });
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
      const full = path.join(dir, entry.name);
      let real = path.join(realDir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          real = await realpath(full);
        } catch (err) {
          if (isYamlName(entry.name)) diagnostics.push(unreadable(displayPath(full, cwd), err));
          continue;
        }
        if (!within(real, realRoot)) {
          diagnostics.push({
            severity: 'warning',
            code: 'symlink-outside',
            message: 'symbolic link points outside the configuration directory; not followed',
            file: displayPath(full, cwd),
          });
          continue;
        }
        const s = await stat(real).catch(() => undefined);
        isDir = s?.isDirectory() ?? false;
        isFile = s?.isFile() ?? false;
      }
      if (isDir) await walk(full, real);
      else if (isFile && isYamlName(entry.name) && !rootFiles.has(full) && !seen.has(real)) {
        seen.add(real);
        found.push(full);
      }
    }
  };
  await walk(root, realRoot);
  return found;
}

function unreadable(file: string, err: unknown): Diagnostic {
  const code = (err as NodeJS.ErrnoException)?.code;
  const why = code === 'ENOENT' ? 'it does not exist (a broken link?)' : code === 'EACCES' ? 'permission denied' : (code ?? 'unknown error');
  return { severity: 'error', code: 'file-unreadable', message: `cannot read file: ${why}`, file };
}

/** Offset of the first byte that breaks UTF-8, or -1. */
function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i];
    const n = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) if (i + k >= buf.length || (buf[i + k] & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return -1;
}

function lineColumnOf(buf: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (buf[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** The file's text, or undefined with a diagnostic (too large, unreadable, binary, not UTF-8). */
export async function readConfigText(abs: string, file: string, diagnostics: Diagnostic[]): Promise<string | undefined> {
  let size: number;
  try {
    size = (await stat(abs)).size;
  } catch (err) {
    diagnostics.push(unreadable(file, err));
    return undefined;
  }
  if (size > MAX_FILE_BYTES) {
    diagnostics.push({
      severity: 'error',
      code: 'file-too-large',
      message: `file is ${(size / (1024 * 1024)).toFixed(1)} MB; configuration files may be at most 1 MB`,
      file,
      hint: 'split it into several files',
    });
    return undefined;
  }
  let buf: Buffer;
  try {
    buf = await readFile(abs);
  } catch (err) {
    diagnostics.push(unreadable(file, err));
    return undefined;
  }
  const nul = buf.indexOf(0);
  if (nul >= 0) {
    diagnostics.push({ severity: 'error', code: 'file-binary', message: 'file holds NUL bytes: not a text file', file, ...lineColumnOf(buf, nul) });
    return undefined;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    const bad = firstInvalidUtf8(buf);
    diagnostics.push({
      severity: 'error',
      code: 'file-encoding',
      message: 'file is not valid UTF-8 text',
      file,
      ...lineColumnOf(buf, Math.max(bad, 0)),
      hint: 'save it as UTF-8',
    });
    return undefined;
  }
}
