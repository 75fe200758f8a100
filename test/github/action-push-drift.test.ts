// The bundled Action on a push (apply) and on a schedule (drift), against the emulator and a fake
// GitHub API.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli, rawApi, serviceEnv, releasedLeases } from '../e2e/harness.js';
import { runBundle, SLACK_URL, TOKEN, writeFiles, type ActionResult } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

/** A second key: the drift it makes is attributed to its user. */
const NIGHT_SHIFT = { keyId: 'NIGHTKEY', secret: 'night-secret', role: 'org-admin' as const, user: 'night-shift@example.com' };

let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ['push1', 'drift1', 'drift2', 'drift3'], rateLimit: 100_000, keys: [NIGHT_SHIFT] }), startFakeGithub()]);
  // Applies find a released lease (as after an earlier apply): taken at once.
  await releasedLeases(emu, ['push1', 'drift1', 'drift2', 'drift3']);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

const secrets = () => ({ ...serviceEnv(emu), SLACK_URL });

function repo(account: string, description: string): string {
  const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  write(ws, account, description);
  return ws;
}

function write(ws: string, account: string, description: string, extra: Record<string, string> = {}): void {
  writeFiles(join(ws, 'posture'), {
    ...extra,
    'postureops.yaml': `accounts:\n  - name: ${account}\nvariables: [SLACK_URL]\n`,
    'channels.yaml': `kind: AlertChannel\nname: ops-slack\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: \${env:SLACK_URL}\n---\nkind: AlertRule\nname: critical\nspec:\n  channels: [ops-slack]\n  severity: [critical]\n  eventCategory: [Cloud]\n  description: ${description}\n`,
  });
}

function expectNoSecrets(r: ActionResult): void {
  const log = r.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  for (const v of [SLACK_URL, emu.secret, TOKEN]) for (const t of [log, r.stderr, r.summary, JSON.stringify(r.outputs)]) expect(t).not.toContain(v);
}

describe('push to the default branch', () => {
  it('applies, prints the changeset to the log and the summary, and counts per action and status', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
    write(ws, 'push1', 'first', { 'tokens.yaml': 'kind: AgentAccessToken\nname: k8s\nspec: {}\n' });
    const seen = gh.requests.length; // the fake GitHub is shared by this file's tests
    const r = await runBundle({
      workspace: ws,
      eventName: 'push',
      payload: { ref: 'refs/heads/main', repository: { default_branch: 'main' } },
      ref: 'refs/heads/main',
      inputs: { directory: 'posture' },
      env: secrets(),
      apiUrl: gh.url,
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ mode: 'apply', status: 'applied', 'has-changes': 'true', failed: 'false', 'count-create': '3', 'count-done': '3', 'count-failed': '0', 'count-skipped': '0' });
    // A new agent token's value: masked first, then handed out in the one output meant for it.
    const value = (await rawApi(emu, 'GET', '/api/v2/AgentAccessTokens', { account: 'push1' })).body.data[0].accessToken as string;
    expect(JSON.parse(r.outputs.credentials)).toEqual({ 'push1/AgentAccessToken/k8s': value });
    const firstUse = r.stdout.split('\n').findIndex((l) => !l.startsWith('::add-mask::') && l.includes(value));
    expect(firstUse).toBe(-1);
    expect(r.stdout).toContain(`::add-mask::${value}`);
    for (const t of [r.stderr, r.summary]) expect(t).not.toContain(value);
    expect(JSON.stringify({ ...r.outputs, credentials: undefined })).not.toContain(value);
    expect(r.stdout).toMatch(/Apply complete|3 done/);
    expect(r.stdout).toContain('critical');
    expect(r.summary).toContain('<!-- postureops-apply -->');
    expect(gh.requests.slice(seen).filter((q) => q.method !== 'GET')).toEqual([]); // no pull request: nothing posted
    expectNoSecrets(r);
    const after = await cli(['plan', join(ws, 'posture'), '--detailed-exitcode'], { env: secrets() });
    expect(after.code).toBe(0);
  });
});

describe('drift', () => {
  const drift = (ws: string) => runBundle({ workspace: ws, eventName: 'schedule', payload: {}, ref: 'refs/heads/main', inputs: { directory: 'posture', mode: 'drift' }, env: secrets(), apiUrl: gh.url });
  const ours = () => gh.issues.filter((i) => i.body.includes('folder=posture '));

  it('opens one issue for the folder, updates it in place, leaves it alone when unchanged, closes it when the drift is gone', async () => {
    const ws = repo('drift1', 'as applied');
    expect((await cli(['apply', join(ws, 'posture'), '--auto-approve'], { env: secrets() })).code).toBe(0);

    const none = await drift(ws);
    expect(none.code, none.stdout).toBe(0);
    expect(none.outputs).toMatchObject({ mode: 'drift', status: 'no-drift', drift: 'false' });
    expect(ours()).toEqual([]);

    // The service no longer matches git (here: git moved on and was never applied).
    write(ws, 'drift1', 'changed in git');
    const first = await drift(ws);
    expect(first.code, first.stdout).toBe(0);
    expect(first.outputs).toMatchObject({ status: 'drift', drift: 'true', 'count-update': '1' });
    expect(ours()).toHaveLength(1);
    const [issue] = ours();
    expect(issue.title).toBe('postureops: live state drifted from posture');
    expect(issue.state).toBe('open');
    expect(issue.body).toContain('1 to update');
    expect(first.outputs.issue).toBe(String(issue.number));

    write(ws, 'drift1', 'changed again');
    await drift(ws);
    expect(ours()).toHaveLength(1);
    expect(ours()[0].body).toContain('changed again');

    const writes = gh.writes().length;
    await drift(ws);
    expect(gh.writes()).toHaveLength(writes);

    expect((await cli(['apply', join(ws, 'posture'), '--auto-approve'], { env: secrets() })).code).toBe(0);
    const gone = await drift(ws);
    expect(gone.outputs.status).toBe('no-drift');
    expect(ours()).toHaveLength(1);
    expect(ours()[0]).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect(gh.comments.get(issue.number)?.[0].body).toContain('matches the configuration again');
    expectNoSecrets(gone);
  });

  it('the issue says who last changed each drifted resource; with attribute: true, the audit entries too', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
    const folder = join(ws, 'attributed');
    writeFiles(folder, {
      'postureops.yaml': 'accounts:\n  - name: drift3\nvariables: [SLACK_URL]\n',
      'channels.yaml': `kind: AlertChannel\nname: ops-slack\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: \${env:SLACK_URL}\n---\nkind: AlertRule\nname: critical\nspec:\n  channels: [ops-slack]\n  severity: [critical]\n  description: as applied\n`,
    });
    expect((await cli(['apply', folder, '--auto-approve'], { env: secrets() })).code).toBe(0);
    const rules = await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'drift3' });
    const mcGuid = rules.body.data[0].mcGuid as string;
    const night = { url: emu.url, keyId: NIGHT_SHIFT.keyId, secret: NIGHT_SHIFT.secret };
    expect((await rawApi(night, 'PATCH', `/api/v2/AlertRules/${mcGuid}`, { account: 'drift3', body: { filters: { description: 'changed by hand' } } })).status).toBe(200);

    const run = (attribute: string) =>
      runBundle({ workspace: ws, eventName: 'schedule', payload: {}, inputs: { directory: 'attributed', mode: 'drift', attribute }, env: secrets(), apiUrl: gh.url });
    const issueOf = () => gh.issues.find((i) => i.body.includes('folder=attributed '))!;

    const plain = await run('false');
    expect(plain.outputs).toMatchObject({ status: 'drift', 'count-update': '1' });
    expect(issueOf().body).toMatch(/\*\*~ update\*\* AlertRule \*\*critical\*\*.*\n_last changed by night-shift@example\.com at \d{4}-\d\d-\d\dT[\d:.]+Z_/);
    expect(issueOf().body).not.toContain('audit log');

    const attributed = await run('true');
    expect(attributed.code, attributed.stdout).toBe(0);
    expect(issueOf().body).toContain(`night-shift@example.com update: Updated alert rule critical (${mcGuid})`);
    expect(gh.issues.filter((i) => i.body.includes('folder=attributed '))).toHaveLength(1);
  });

  it('an unreadable service fails the run and leaves the issue alone', async () => {
    const ws = repo('drift2', 'x');
    const r = await runBundle({ workspace: ws, eventName: 'schedule', payload: {}, inputs: { directory: 'posture', mode: 'drift' }, env: { ...secrets(), SVC_API_SECRET: 'wrong-secret-value' }, apiUrl: gh.url });
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ status: 'failed', failed: 'true' });
    expect(r.stdout).toMatch(/^::error::the service could not be read/m);
    expect(r.stdout.indexOf('::add-mask::wrong-secret-value')).toBeGreaterThanOrEqual(0);
    expectNoSecrets(r);
    expect(r.stdout.split('\n').filter((l) => !l.startsWith('::add-mask::')).join('\n')).not.toContain('wrong-secret-value');
  });
});
