// The bundled Action with changed-since, shard and plan-out, and mode merge: a pull request plans only
// the accounts it changes; shards post nothing themselves; the merge job posts the one comment (equal
// to an unsharded run's) and keeps the one drift issue.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { serviceEnv, releasedLeases } from '../e2e/harness.js';
import { pullPayload, runBundle, writeFiles, type ActionResult } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

const ACCOUNTS = ['sc1', 'sc2', 'sc3', 'sc4'];
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();

let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ACCOUNTS, rateLimit: 100_000 }), startFakeGithub()]);
  // Applies find a released lease (as after an earlier apply): taken at once.
  await releasedLeases(emu, ACCOUNTS);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

const hook = (name: string, account: string, url = `https://hooks.example.com/${name}`) =>
  `kind: AlertChannel\nname: ${name}\naccount: ${account}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: ${url}\n`;

/** A git workspace: posture/ with one file per account (sc1 heavier), committed as the base. */
function workspace(): { ws: string; base: string } {
  const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  writeFiles(join(ws, 'posture'), {
    'postureops.yaml': `accounts:\n${ACCOUNTS.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: sc1\n`,
    ...Object.fromEntries(ACCOUNTS.map((a) => [`${a}.yaml`, hook(`hook-${a}`, a) + (a === 'sc1' ? `---\n${hook('second', a)}` : '')])),
  });
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'base');
  return { ws, base: git(ws, 'rev-parse', 'HEAD') };
}

function pr(ws: string, number: number, base: string | undefined, inputs: Record<string, string>): Promise<ActionResult> {
  const payload = pullPayload(number) as { pull_request: { base: Record<string, unknown> } };
  if (base !== undefined) payload.pull_request.base.sha = base;
  return runBundle({ workspace: ws, eventName: 'pull_request', payload, inputs: { directory: 'posture', ...inputs }, env: serviceEnv(emu), apiUrl: gh.url });
}

const commentsOf = (n: number) => gh.comments.get(n) ?? [];

describe('changed-since on a pull request', () => {
  it("plans only the accounts the pull request changes, from the event's base commit", async () => {
    const { ws, base } = workspace();
    writeFiles(join(ws, 'posture'), { 'sc3.yaml': hook('hook-sc3', 'sc3', 'https://hooks.example.com/changed') });
    git(ws, 'commit', '-qam', 'change sc3');
    const r = await pr(ws, 61, base, {});
    expect(r.code, r.stdout).toBe(0);
    const [c] = commentsOf(61);
    expect(c.body).toContain(`Scope (--changed-since ${base.slice(0, 7)}): 1 of 4 accounts planned; 3 skipped`);
    expect(c.body).toContain('Plan: 1 to create');
    expect(c.body).toMatch(/no document of it changed since [0-9a-f]{7} \(3\): sc1, sc2, sc4/);

  });

  it('writes the routing report against the base commit, offline, for the workflow to upload', async () => {
    const { ws, base } = workspace();
    writeFiles(join(ws, 'posture'), { 'rule.yaml': 'kind: AlertRule\nname: sc3-critical\naccount: sc3\nspec:\n  channels: [hook-sc3]\n  severity: [critical]\n  eventCategory: [Cloud]\n' });
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'route sc3 Cloud/critical');
    const r = await pr(ws, 64, base, {});
    expect(r.code, r.stdout).toBe(0);
    const file = r.outputs['routing-report'];
    expect(file).toMatch(/postureops-routing-posture\.html$/);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('Compared with the pull request&#39;s base (commit ' + base.slice(0, 12) + ')');
    expect(html.match(/<td class="cell changed[^"]*" data-cell="[^"]*"/g)).toEqual(['<td class="cell changed" data-cell="Cloud/critical"']);
    expect(r.stdout).toContain('1 cell(s) change against the base');
    // The comment points at the report: the run's artifact, through the run's reference.
    const [c] = commentsOf(64);
    expect(c.body).toContain('the `postureops-routing` artifact of the [workflow run][postureops-run]. 1 cell change against the base, marked in it.');
  });

  it('a base commit the checkout lacks and cannot fetch fails the run with what to do', async () => {
    const { ws } = workspace();
    const r = await pr(ws, 63, 'f'.repeat(40), {});
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/the commit is not in the checkout and could not be fetched/);
    expect(commentsOf(63)[0].body).toContain('the changed accounts could not be found');
    expect(commentsOf(63)[0].body).toContain('fetch-depth: 0');
  });
});

describe('target', () => {
  it('plans only the selected resources and what they depend on, one selector per line, as plan --target does', async () => {
    const { ws } = workspace();
    const r = await pr(ws, 64, undefined, { 'changed-since': 'none', target: 'sc1/AlertChannel/second\nsc2/AlertChannel/hook-sc2\n' });
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ status: 'planned', 'count-create': '2' });
    const [c] = commentsOf(64);
    expect(c.body).toContain('second');
    expect(c.body).toContain('hook-sc2');
    expect(c.body).not.toContain('hook-sc3');
    // A selector that names nothing fails the run, as --target does.
    const none = await pr(ws, 65, undefined, { 'changed-since': 'none', target: 'sc1/AlertChannel/nope' });
    expect(none.code).not.toBe(0);
    expect(none.outputs.failed).toBe('true');
    expect(none.stdout).toContain('sc1/AlertChannel/nope names no declared or live resource');
  });
});

describe('shards and mode merge', () => {
  it('shards post nothing; the merge job posts the comment an unsharded run posts, and on a schedule keeps one drift issue', async () => {
    const { ws } = workspace();
    const plans = join(ws, 'plans');
    const unsharded = await pr(ws, 71, undefined, {});
    expect(unsharded.code, unsharded.stdout).toBe(0);
    const shards = await Promise.all(['1/2', '2/2'].map((shard, i) => pr(ws, 72, undefined, { shard, 'plan-out': `plans/shard-${i + 1}.json` })));
    for (const s of shards) {
      expect(s.code, s.stdout).toBe(0);
      expect(s.stdout).toContain('no comment of its own');
      expect(s.outputs['plan-file']).toMatch(/shard-\d\.json$/);
    }
    expect(commentsOf(72)).toEqual([]);
    expect(readdirSync(plans).sort()).toEqual(['shard-1.json', 'shard-2.json']);

    const merged = await pr(ws, 72, undefined, { mode: 'merge', plans: 'plans' });
    expect(merged.code, merged.stdout).toBe(0);
    expect(merged.outputs).toMatchObject({ mode: 'plan', status: 'planned', 'count-create': '5' });
    expect(commentsOf(72)).toHaveLength(1);
    expect(commentsOf(72)[0].body).toBe(commentsOf(71)[0].body);

    const drift = await runBundle({ workspace: ws, eventName: 'schedule', payload: {}, ref: 'refs/heads/main', inputs: { directory: 'posture', mode: 'merge', plans: 'plans' }, env: {}, apiUrl: gh.url });
    expect(drift.code, drift.stdout).toBe(0);
    expect(drift.outputs).toMatchObject({ mode: 'drift', status: 'drift', 'count-create': '5' });
    const issues = gh.issues.filter((i) => i.body.includes('folder=posture '));
    expect(issues).toHaveLength(1);
    expect(issues[0].body).toContain('Plan: 5 to create');

  });
});

describe('changed-since defaults', () => {
  it('auto: the base of a pull request, every change since the last successful apply for an apply, everything for drift and merge; none and a ref as given', async () => {
    const { changedSinceFor } = await import('../../src/github/settings.js');
    const base = 'a'.repeat(40);
    const pull = { base: { sha: base } };
    expect(changedSinceFor('auto', 'plan', pull)).toBe(base);
    expect(changedSinceFor('', 'plan', pull)).toBe(base);
    // Not the push's own range: a cancelled run's range would be lost (action-interleavings.test.ts).
    expect(changedSinceFor('auto', 'apply', undefined)).toBe('last-applied');
    expect(changedSinceFor('auto', 'plan', undefined)).toBeUndefined();
    expect(changedSinceFor('auto', 'drift', pull)).toBeUndefined();
    expect(changedSinceFor('auto', 'merge', pull)).toBeUndefined();
    expect(changedSinceFor('none', 'apply', pull)).toBeUndefined();
    expect(changedSinceFor('origin/main', 'drift', undefined)).toBe('origin/main');
  });
});

describe('the routing report line for the comment', () => {
  it('names the artifact, links the run through its reference and counts the changed cells', async () => {
    const { routingReportLine } = await import('../../src/github/bodies.js');
    const stamp = { folder: 'posture', sha: 'a'.repeat(40), runUrl: 'https://github.example/acme/posture/actions/runs/777' };
    expect(routingReportLine(stamp, { changedCells: 3 })).toBe(
      "Routing report (every account's category × severity matrix, in a browser): the `postureops-routing` artifact of the [workflow run][postureops-run]. 3 cells change against the base, marked in it.",
    );
    expect(routingReportLine(stamp, { changedCells: 0 })).toContain('No cell changes against the base.');
    expect(routingReportLine(stamp, {})).not.toContain('cell');
    expect(routingReportLine({ ...stamp, runUrl: '' }, {})).toContain('artifact of the workflow run.');
  });
});
