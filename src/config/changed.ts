// `--changed-since`: the accounts whose documents changed. A changed document file counts for the
// accounts its documents are stamped into now and for those they were stamped into at the commit
// (a deleted or moved document leaves accounts that must be planned: their deletion shows); a
// change of the root file counts for every account. Other files (README, .env) count for none.
// changedAccounts gets the changed paths and the old texts; changedSinceRef reads them with git.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { RootConfig } from '../model/account.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { Json } from '../model/json.js';
import { readConfigText, ROOT_FILE_NAMES } from './files.js';
import { parseYamlDocuments } from './yaml-source.js';
import { gitChanges } from '../util/git.js';

export interface ChangedFile {
  /** Relative to the configuration folder, '/' separated. */
  path: string;
  /** git's status letter; `?` untracked. */
  status: string;
}

export interface ChangeInput {
  /** The configuration folder (absolute). */
  dir: string;
  root: RootConfig;
  changed: readonly ChangedFile[];
  /** A file's text at the commit compared with; undefined when it did not exist there. */
  readOld(relPath: string): Promise<string | undefined>;
}

export interface ChangedAccountsResult {
  /** In the root file's order. */
  accounts: string[];
  /** Per account, the changed files that brought it in (for --verbose and tests). */
  because: Map<string, string[]>;
}

const isYaml = (p: string): boolean => /\.ya?ml$/i.test(p);

/** Whether the loader reads this path as a document file (it skips hidden entries and node_modules). */
function isDocumentPath(rel: string): boolean {
  const parts = rel.split('/');
  if (parts.some((p) => p.startsWith('.') || p === 'node_modules')) return false;
  return isYaml(rel) && !(parts.length === 1 && ROOT_FILE_NAMES.includes(parts[0]));
}

/** A folder below `dir` with its own root file is another configuration: its files are not ours. */
async function inNestedRoot(dir: string, rel: string): Promise<boolean> {
  const parts = rel.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    for (const name of ROOT_FILE_NAMES) {
      if (await stat(path.join(dir, ...parts.slice(0, i), name)).then((s) => s.isFile(), () => false)) return true;
    }
  }
  return false;
}

/** The accounts the documents of one file are stamped into, as the loader resolves `account`. */
export function documentAccounts(file: string, text: string, root: RootConfig): string[] {
  const declared = root.accounts.map((a) => a.name);
  const out = new Set<string>();
  const add = (name: Json | undefined): void => {
    if (typeof name === 'string' && declared.includes(name)) out.add(name);
  };
  for (const doc of parseYamlDocuments(file, text, [])) {
    const value = doc.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const account = value.account;
    if (account === undefined) {
      if (root.defaultAccount !== undefined) add(root.defaultAccount);
      else if (declared.length === 1) add(declared[0]);
    } else if (account === '*') declared.forEach(add);
    else if (Array.isArray(account)) account.forEach(add);
    else add(account);
  }
  return declared.filter((a) => out.has(a));
}

export async function changedAccounts(input: ChangeInput): Promise<ChangedAccountsResult> {
  const declared = input.root.accounts.map((a) => a.name);
  const because = new Map<string, string[]>();
  const note = (account: string, file: string): void => {
    const list = because.get(account);
    if (!list) because.set(account, [file]);
    else if (!list.includes(file)) list.push(file);
  };
  for (const { path: rel } of input.changed) {
    const parts = rel.split('/');
    if (parts.length === 1 && ROOT_FILE_NAMES.includes(parts[0])) {
      for (const a of declared) note(a, rel);
      continue;
    }
    if (!isDocumentPath(rel) || (await inNestedRoot(input.dir, rel))) continue;
    const ignored: Diagnostic[] = [];
    const now = await readConfigText(path.join(input.dir, ...parts), rel, ignored).catch(() => undefined);
    const before = await input.readOld(rel);
    for (const text of [now, before]) {
      if (text === undefined) continue;
      for (const a of documentAccounts(rel, text, input.root)) note(a, rel);
    }
  }
  return { accounts: declared.filter((a) => because.has(a)), because };
}

/**
 * The accounts whose documents changed between `ref` and the working tree of `dir`, read with git
 * (GitError when git cannot say: no repository, an unknown ref, git missing).
 */
export async function changedSinceRef(dir: string, root: RootConfig, ref: string): Promise<{ ref: string; commit: string; accounts: ReadonlySet<string> }> {
  const git = await gitChanges(dir, ref);
  const found = await changedAccounts({ dir, root, changed: git.changed, readOld: (p) => git.readAtCommit(p) });
  return { ref, commit: git.commit, accounts: new Set(found.accounts) };
}
