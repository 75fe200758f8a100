// The bundled Action on pull requests, against the emulator and a fake GitHub API: one comment per
// folder, kept in place, never stale; forks and refusals fall back to the summary; secrets masked.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli, serviceEnv, releasedLeases } from '../e2e/harness.js';
import { pullPayload, runBundle, SLACK_URL, TOKEN, writeFiles, type ActionResult } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

const ACCOUNTS = ['pr1', 'pr2', 'pr3', 'pr4', 'pr5', 'pr6', 'pr7', 'pr8', 'pr9'];
let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ACCOUNTS, rateLimit: 100_000, keyId: 'KEY_pr_0001', secret: 'svc-SECRET-pr-0123456789' }), startFakeGithub()]);
  // Applies find a released lease (as after an earlier apply): taken at once.
  await releasedLeases(emu, ACCOUNTS);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

function config(account: string, opts: { description?: string; prune?: boolean; rule?: boolean } = {}): Record<string, string> {
  const rule = opts.rule === false ? '' : `---\nkind: AlertRule\nname: critical\nspec:\n  channels: [ops-slack]\n  severity: [critical]\n  eventCategory: [Cloud]\n  description: ${opts.description ?? 'first'}\n`;
  return {
    // Pruning deletes one of the two resources: 50 %, which this repository's delete threshold allows.
    'postureops.yaml': `accounts:\n  - name: ${account}\nvariables: [SLACK_URL]\nprune: ${opts.prune ? 'true\nsafety: {deletePercent: 50}' : 'false'}\n`,
    'channels.yaml': `kind: AlertChannel\nname: ops-slack\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: \${env:SLACK_URL}\n${rule}`,
  };
}

function workspace(folders: Record<string, Record<string, string>>): string {
  const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  for (const [folder, files] of Object.entries(folders)) writeFiles(join(ws, folder), files);
  return ws;
}

const secrets = () => ({ ...serviceEnv(emu), SLACK_URL });

function pr(ws: string, number: number, opts: { folder?: string; inputs?: Record<string, string>; env?: Record<string, string>; fork?: boolean; sha?: string } = {}): Promise<ActionResult> {
  return runBundle({
    workspace: ws,
    eventName: 'pull_request',
    payload: pullPayload(number, opts.fork),
    inputs: { directory: opts.folder ?? 'posture', ...opts.inputs },
    env: opts.env ?? secrets(),
    apiUrl: gh.url,
    sha: opts.sha,
  });
}

const commentsOf = (n: number) => gh.comments.get(n) ?? [];
const writesOn = (n: number) => gh.requests.filter((r) => r.method !== 'GET' && (r.url.includes(`/issues/${n}/`) || commentsOf(n).some((c) => r.url.endsWith(`/issues/comments/${c.id}`))));

/** No secret value in anything the run left, except the mask registrations themselves. */
function expectNoSecrets(r: ActionResult, n: number): void {
  const values = [SLACK_URL, emu.secret, TOKEN];
  const log = r.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  const texts = [log, r.stderr, r.summary, JSON.stringify(r.outputs), ...commentsOf(n).map((c) => c.body)];
  for (const v of values) for (const t of texts) expect(t).not.toContain(v);
}

describe('plan comment on a pull request', () => {
  it('the first run creates one comment with the plan, the commit and a link to the run', async () => {
    const ws = workspace({ posture: config('pr1') });
    // GITHUB_SHA of a pull_request run is the merge commit: the comment names the PR's head.
    const r = await runBundle({
      workspace: ws,
      eventName: 'pull_request',
      payload: pullPayload(101, false, 'c0ffee0000000000000000000000000000000001'),
      inputs: { directory: 'posture' },
      env: secrets(),
      apiUrl: gh.url,
      sha: 'dead000000000000000000000000000000000000',
    });
    expect(r.code, r.stdout).toBe(0);
    const comments = commentsOf(101);
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toMatch(/^<!-- postureops:comment folder=posture digest=[0-9a-f]{16} deletes=false -->/);
    expect(comments[0].body).toContain('2 to create');
    expect(comments[0].body).toContain('commit `c0ffee0`');
    expect(comments[0].body).toContain('\n[postureops-run]: https://github.example/acme/posture/actions/runs/777\n');
    expect(comments[0].body).toContain('[workflow run][postureops-run]');
    expect(r.outputs).toMatchObject({ mode: 'plan', status: 'planned', 'has-changes': 'true', 'count-create': '2', 'count-delete': '0' });
    expect(r.summary).toContain('postureops plan');
    expect(gh.requests.filter((q) => q.url.includes('/issues/101/')).every((q) => q.authorization === `token ${TOKEN}`)).toBe(true);
    expectNoSecrets(r, 101);
  });

  it('a changed plan updates that comment in place; an unchanged one writes nothing', async () => {
    const ws = workspace({ posture: config('pr2') });
    await pr(ws, 102);
    const id = commentsOf(102)[0].id;
    writeFiles(join(ws, 'posture'), config('pr2', { description: 'second' }));
    const changed = await pr(ws, 102, { sha: 'c0ffee0000000000000000000000000000000002' });
    expect(changed.code).toBe(0);
    expect(commentsOf(102).map((c) => c.id)).toEqual([id]);
    expect(commentsOf(102)[0].body).toContain('second');
    expect(commentsOf(102)[0].body).toContain('commit `c0ffee0`');
    const before = writesOn(102).length;
    const again = await pr(ws, 102, { sha: 'c0ffee0000000000000000000000000000000002' });
    expect(again.code).toBe(0);
    expect(writesOn(102)).toHaveLength(before);
    expect(again.stdout).toContain('is up to date; not rewritten');
  });

  it('a broken configuration replaces the comment with the failure; so does a service that cannot be read', async () => {
    const ws = workspace({ posture: config('pr3') });
    await pr(ws, 103);
    expect(commentsOf(103)[0].body).toContain('2 to create');
    writeFiles(join(ws, 'posture'), { 'channels.yaml': 'kind: AlertChannel\nname: ops-slack\nspec:\n  type: SlackChannel\n  enabeld: true\n  data:\n    slackUrl: ${env:SLACK_URL}\n' });
    const broken = await pr(ws, 103);
    expect(broken.code).toBe(1);
    const [c] = commentsOf(103);
    expect(commentsOf(103)).toHaveLength(1);
    expect(c.body).not.toContain('to create');
    expect(c.body).toContain('the configuration is invalid');
    expect(c.body).toMatch(/1 annotation on the files/);
    expect(c.body).toContain('How to fix it');
    expect(c.body).toContain('channels.yaml');
    expect(broken.stdout).toMatch(/^::error title=unknown-field,file=posture\/channels.yaml,line=5,col=3::unknown field `enabeld`/m);
    expect(broken.outputs).toMatchObject({ status: 'invalid', failed: 'true', 'has-changes': 'false' });

    writeFiles(join(ws, 'posture'), config('pr3'));
    // A refused key (401, permanent): the same failure as an unreachable service, without the client's retries.
    const down = await pr(ws, 103, { env: { ...secrets(), SVC_API_SECRET: 'refused-secret-0001' } });
    expect(down.code).toBe(1);
    expect(commentsOf(103)).toHaveLength(1);
    expect(commentsOf(103)[0].body).toContain('the service could not be read');
    expect(commentsOf(103)[0].body).toContain('SVC_BASE_URL');
    expect(commentsOf(103)[0].body).not.toContain('refused-secret-0001');
    expectNoSecrets(down, 103);
  });

  it('a second folder gets its own comment', async () => {
    const ws = workspace({ posture: config('pr4'), 'other/place': config('pr5', { rule: false }) });
    await pr(ws, 104);
    const r = await pr(ws, 104, { folder: './other/place/' });
    expect(r.code).toBe(0);
    const comments = commentsOf(104);
    expect(comments).toHaveLength(2);
    expect(comments[0].body).toContain('folder=posture ');
    expect(comments[0].body).toContain('2 to create');
    expect(comments[1].body).toContain('folder=other%2Fplace ');
    expect(comments[1].body).toContain('1 to create');
  });

  it("a marker in a person's comment is not ours; a duplicate of ours (two runs racing) is deleted", async () => {
    const ws = workspace({ posture: config('pr9') });
    const planted = { id: 9001, body: '<!-- postureops:comment folder=posture digest=0000000000000000 deletes=true -->\nnot from postureops', user: { login: 'stranger', type: 'User' } };
    gh.comments.set(109, [planted]);
    const first = await pr(ws, 109);
    expect(first.code, first.stdout).toBe(0);
    expect(commentsOf(109)).toHaveLength(2);
    expect(commentsOf(109)[0]).toEqual(planted); // left alone: neither edited nor deleted
    const ours = commentsOf(109)[1];
    // A second run that raced the first created its own comment for the folder too.
    gh.comments.set(109, [...commentsOf(109), { ...ours, id: 9002 }]);
    const again = await pr(ws, 109, { sha: 'c0ffee0000000000000000000000000000000003' });
    expect(again.code, again.stdout).toBe(0);
    expect(commentsOf(109).map((c) => c.id)).toEqual([planted.id, ours.id]);
    expect(commentsOf(109)[1].body).toContain('c0ffee0');
  });

  it('a deletion puts the danger line on top and the postureops:delete label on, removed when it no longer applies', async () => {
    const ws = workspace({ posture: config('pr6') });
    const applied = await cli(['apply', join(ws, 'posture'), '--auto-approve'], { env: secrets() });
    expect(applied.code, applied.stderr).toBe(0);
    writeFiles(join(ws, 'posture'), config('pr6', { prune: true, rule: false }));
    const r = await pr(ws, 106, { inputs: { labels: 'true' } });
    expect(r.code, r.stdout).toBe(0);
    const body = commentsOf(106)[0].body;
    expect(body).toMatch(/deletes=true -->\n\n<!-- postureops-plan -->\n\n## postureops plan\n\n> \[!CAUTION\]\n> \*\*Review: 1 deletion · 1 cell loses every channel\.\*\*\n/);
    expect(gh.labels.get(106)).toEqual(['postureops:delete']);
    writeFiles(join(ws, 'posture'), config('pr6', { prune: false, rule: false }));
    await pr(ws, 106, { inputs: { labels: 'true' } });
    expect(commentsOf(106)[0].body).not.toContain('[!CAUTION]');
    expect(commentsOf(106)[0].body).toContain('**No deletion, no cell left without a channel');
    expect(gh.labels.get(106)).toEqual([]);
  });
});

describe('falling back to the summary', () => {
  it('a 403 on the comment: a warning that names the permission, the summary holds the plan, the step passes', async () => {
    const ws = workspace({ posture: config('pr7') });
    gh.override.set('POST /repos/acme/posture/issues/107/comments', { status: 403, body: { message: 'Resource not accessible by integration' } });
    const r = await pr(ws, 107);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^::warning title=postureops::could not comment on pull request #107: .*Resource not accessible by integration.*pull-requests: write/m);
    expect(r.summary).toContain('2 to create');
  });

  it('a fork: validated without secrets, a notice says why there is no plan, the read-only token gets the fork hint', async () => {
    const ws = workspace({ posture: config('pr8') });
    gh.override.set('POST /repos/acme/posture/issues/108/comments', { status: 403, body: { message: 'Resource not accessible by integration' } });
    // What GitHub gives a fork: empty secrets.
    const empty = { SVC_BASE_URL: '', SVC_API_KEY_ID: '', SVC_API_SECRET: '', SLACK_URL: '' };
    const calls = emu.requestCount();
    const r = await pr(ws, 108, { fork: true, env: empty });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^::notice title=postureops%3A not planned::This pull request comes from a fork/m);
    expect(r.stdout).toMatch(/could not comment on pull request #108: .*comes from a fork, so its token is read-only.*job summary/);
    expect(r.stdout).not.toContain('pull-requests: write');
    expect(r.stdout).not.toContain('https:// URL');
    expect(r.summary).toContain('validated without secrets (valid)');
    expect(r.summary).toContain('`SLACK_URL`');
    expect(r.outputs).toMatchObject({ mode: 'validate', status: 'validated' });
    expect(emu.requestCount()).toBe(calls); // the fork run never called the service

    writeFiles(join(ws, 'posture'), { 'postureops.yaml': 'accounts:\n  - name: pr8\nprune: sometimes\n' });
    const invalid = await pr(ws, 108, { fork: true, env: empty });
    expect(invalid.code).toBe(1);
    expect(invalid.outputs.status).toBe('invalid');
  });
});

describe('secrets', () => {
  it('::add-mask:: registers every secret before any other line uses it', async () => {
    const ws = workspace({ posture: config('pr1') });
    const r = await pr(ws, 109, { env: { ...secrets(), SVC_API_SECRET: emu.secret } });
    const lines = r.stdout.split('\n');
    // The credentials before any line; what the configuration reads as the loader reads it, inside
    // the load's group, before any line that could hold it.
    const loading = lines.indexOf('::group::Load the configuration');
    for (const value of [emu.secret, emu.keyId, TOKEN]) {
      const masked = lines.findIndex((l) => l === `::add-mask::${value}`);
      expect(masked, value).toBeGreaterThanOrEqual(0);
      expect(lines.slice(0, masked).some((l) => !l.startsWith('::add-mask::'))).toBe(false);
    }
    const read = lines.findIndex((l) => l === `::add-mask::${SLACK_URL}`);
    expect(read).toBeGreaterThan(loading);
    expect(lines.slice(loading + 1, read).some((l) => !l.startsWith('::add-mask::'))).toBe(false);
    expectNoSecrets(r, 109);
  });
});
