// The state file: written atomically (temp file in the same folder, fsync, rename) so that a crash
// leaves either the old or the new state. A file that cannot be read or understood is an error at
// start, never a silent reset.

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SCOPE_COLLECTIONS, type StateDocument } from './model.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function checkScope(v: unknown, where: string): string | undefined {
  if (!isObject(v)) return `${where} is not an object`;
  for (const c of SCOPE_COLLECTIONS) {
    if (!Array.isArray(v[c])) return `${where}.${c} is not an array`;
  }
  return undefined;
}

/** What is wrong with a parsed state document, or undefined when it looks right. */
function problemOf(doc: unknown): string | undefined {
  if (!isObject(doc)) return 'the top level is not an object';
  if (doc.formatVersion !== 1) return `formatVersion is ${JSON.stringify(doc.formatVersion)}, expected 1`;
  if (!isObject(doc.accounts)) return 'accounts is not an object';
  for (const [name, scope] of Object.entries(doc.accounts)) {
    const p = checkScope(scope, `accounts.${name}`);
    if (p) return p;
  }
  const p = checkScope(doc.org, 'org');
  if (p) return p;
  if (!isObject(doc.counters) || typeof doc.counters.writes !== 'number') return 'counters.writes is not a number';
  return undefined;
}

/** The stored state, or undefined when the file does not exist. */
export function loadState(path: string): StateDocument | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new Error(`emulator state file ${path} cannot be read (${code ?? String(err)})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`emulator state file ${path} is not valid JSON (${(err as Error).message}); fix or remove it`);
  }
  const problem = problemOf(doc);
  if (problem) throw new Error(`emulator state file ${path} is not an emulator state: ${problem}; fix or remove it`);
  return doc as StateDocument;
}

export function saveState(path: string, doc: StateDocument): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(doc));
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    throw err;
  }
  closeSync(fd);
  renameSync(temp, path);
  // Make the rename itself durable; not every platform lets a folder be fsynced.
  try {
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    /* best effort */
  }
}
