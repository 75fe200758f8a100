// `last-applied`: each account compared with the commit of its own last successful apply; an account
// without a record, with an unreadable one, or whose commit left the history is planned whole.

import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { changedSinceApplied } from '../../src/github/changes.js';
import type { AppliedState } from '../../src/ops/apply/applied.js';
import { writeFiles } from './action-harness.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
const ACCOUNTS = ['a', 'b', 'c', 'd', 'e', 'f'];
const hook = (account: string, v: string) => `kind: AlertChannel\nname: hook\naccount: ${account}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${v}\n`;

describe('changedSinceApplied', () => {
  it('plans an account changed since its own record, and whole when the record is missing, unreadable or gone from the history', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-applied-'));
    writeFiles(ws, {
      'postureops.yaml': `accounts:\n${ACCOUNTS.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: a\n`,
      ...Object.fromEntries(ACCOUNTS.map((a) => [`${a}.yaml`, hook(a, '0')])),
    });
    git(ws, 'init', '-q');
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'c0');
    const c0 = git(ws, 'rev-parse', 'HEAD');
    writeFiles(ws, { 'a.yaml': hook('a', '1'), 'b.yaml': hook('b', '1') });
    git(ws, 'commit', '-qam', 'c1');
    const c1 = git(ws, 'rev-parse', 'HEAD');
    const loaded = await loadConfig(ws, { env: {} });
    const lines: string[] = [];
    const changed = await changedSinceApplied(
      ws,
      loaded.state!,
      new Map<string, AppliedState>([
        ['a', { commit: c0 }], // changed since c0
        ['b', { commit: c1 }], // recorded at the head: nothing to do
        ['c', { commit: c0 }], // not changed since c0
        ['d', 'none'],
        ['e', 'unreadable'],
        ['f', { commit: 'f'.repeat(40) }], // rewritten history: not in the repository, not fetchable
      ]),
      c1,
      (l) => lines.push(l),
    );
    expect([...changed.accounts].sort()).toEqual(['a', 'd', 'e', 'f']);
    expect(changed.ref).toBe('last-applied');
    // The scope line's commit: the one most skipped accounts were last applied at (b at c1, c at c0: a tie, the first).
    expect(changed.commit).toBe(c1);
    expect(lines).toContain(`postureops: last applied: a, c at ${c0.slice(0, 7)}; b at ${c1.slice(0, 7)}; f at fffffff`);
    expect(lines).toContain(
      `postureops: planning every resource of d (no record of a successful apply), e (its record cannot be read), f (its last applied commit fffffff is not in the repository)`,
    );
  });
});
