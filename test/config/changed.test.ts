// Which accounts a set of changed files touches (--changed-since), without git: the old texts come in
// through readOld, as git show would give them.

import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedAccounts, documentAccounts } from '../../src/config/changed.js';
import type { RootConfig } from '../../src/model/account.js';

const root: RootConfig = {
  file: 'postureops.yaml',
  accounts: ['prod', 'staging', 'dev'].map((name) => ({ name, orgAccess: false })),
  defaultAccount: 'prod',
  prune: {},
};
const doc = (account?: unknown) => `kind: AlertChannel\nname: x\n${account === undefined ? '' : `account: ${JSON.stringify(account)}\n`}spec: {}\n`;

describe('documentAccounts', () => {
  it('resolves account as the loader does: default, a name, a list, "*"; undeclared names count for none', () => {
    expect(documentAccounts('a.yaml', doc(), root)).toEqual(['prod']);
    expect(documentAccounts('a.yaml', doc('staging'), root)).toEqual(['staging']);
    expect(documentAccounts('a.yaml', `${doc(['dev', 'gone'])}---\n${doc('staging')}`, root)).toEqual(['staging', 'dev']);
    expect(documentAccounts('a.yaml', doc('*'), root)).toEqual(['prod', 'staging', 'dev']);
    expect(documentAccounts('a.yaml', 'kind: [unclosed', root)).toEqual([]);
  });
});

describe('changedAccounts', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'postureops-changed-'));
    await writeFile(join(dir, 'now.yaml'), doc('dev'));
    await mkdir(join(dir, 'nested'));
    await writeFile(join(dir, 'nested', 'postureops.yaml'), 'accounts: [{name: other}]\n');
    await writeFile(join(dir, 'nested', 'x.yaml'), doc('staging'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const old: Record<string, string> = { 'now.yaml': doc('staging'), 'deleted.yaml': doc() };
  const run = (paths: string[]) =>
    changedAccounts({ dir, root, changed: paths.map((path) => ({ path, status: 'M' })), readOld: async (p) => old[p] });

  it('a document counts for its accounts now and at the commit (a move plans both; a deletion the one it left)', async () => {
    expect((await run(['now.yaml'])).accounts).toEqual(['staging', 'dev']);
    expect((await run(['deleted.yaml'])).accounts).toEqual(['prod']);
  });

  it('the root file counts for every account; other files, hidden ones and nested configurations for none', async () => {
    expect((await run(['postureops.yaml'])).accounts).toEqual(['prod', 'staging', 'dev']);
    expect((await run(['README.md', '.env', '.github/workflows/plan.yml', 'nested/x.yaml', 'node_modules/a.yaml'])).accounts).toEqual([]);
  });
});
