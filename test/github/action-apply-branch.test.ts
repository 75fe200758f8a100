// Applying needs the branch that was reviewed (issue 29): the bundled Action against the emulator and
// a fake GitHub applies only a push to, or a manual run on, the default branch or a branch the
// apply-branches input names. Anything else, `mode: apply` included, fails with one line before
// anything is read: no request reaches the service, nothing is posted to GitHub.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { applyBranches, applyRefusal, detectMode, isBranchName } from '../../src/github/settings.js';
import { rawApi, releasedLeases, serviceEnv } from '../e2e/harness.js';
import { pullPayload, runBundle, writeFiles, type ActionResult, type RunOptions } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ['br1', 'br2', 'br3', 'br4'], rateLimit: 100_000 }), startFakeGithub()]);
  // Applies find a released lease (as after an earlier apply): taken at once.
  await releasedLeases(emu, ['br1', 'br2', 'br3', 'br4']);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

function repo(account: string): string {
  const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  writeFiles(join(ws, 'posture'), {
    'postureops.yaml': `accounts:\n  - name: ${account}\n`,
    'hook.yaml': `kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${account}\n`,
  });
  return ws;
}

async function channels(account: string): Promise<string[]> {
  const r = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account });
  return (r.body.data as { name: string }[]).map((c) => c.name);
}

type Run = Pick<RunOptions, 'eventName' | 'payload' | 'ref'> & { inputs?: Record<string, string> };

/** A run of the Action with `mode: apply` (unless the inputs say otherwise); what reached the service and GitHub. */
async function run(account: string, o: Run): Promise<{ r: ActionResult; sent: number; posted: number }> {
  const requests = emu.requestCount();
  const posted = gh.requests.length;
  const r = await runBundle({ workspace: repo(account), env: serviceEnv(emu), apiUrl: gh.url, ...o, inputs: { directory: 'posture', mode: 'apply', ...o.inputs } });
  return { r, sent: emu.requestCount() - requests, posted: gh.requests.length - posted };
}

const main = { repository: { default_branch: 'main' } };

function expectRefused(x: { r: ActionResult; sent: number; posted: number }, ref: string): void {
  expect(x.r.code, x.r.stdout).toBe(1);
  const errors = x.r.stdout.split('\n').filter((l) => l.startsWith('::error'));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(/^::error::postureops: apply refused: this run is a .* on .*; nothing was read or sent$/);
  expect(errors[0]).toContain(JSON.stringify(ref));
  expect(x.r.outputs).toMatchObject({ mode: 'apply', status: 'branch-refused', failed: 'true', 'has-changes': 'false' });
  expect(x.sent).toBe(0);
  expect(x.posted).toBe(0);
  expect(x.r.stdout).not.toMatch(/::add-mask::|::group::/);
}

describe('an apply needs the reviewed branch (bundled Action, emulator, fake GitHub)', () => {
  it('a push to a feature branch with mode: apply is refused: nothing sent to the service, nothing posted', async () => {
    const x = await run('br1', { eventName: 'push', payload: { ref: 'refs/heads/feature', ...main }, ref: 'refs/heads/feature' });
    expectRefused(x, 'refs/heads/feature');
    expect(x.r.stdout).toContain('one of the branches "main"');
    expect(await channels('br1')).toEqual([]);
  });

  it('a manual run (workflow_dispatch) on a feature branch is refused', async () => {
    const x = await run('br1', { eventName: 'workflow_dispatch', payload: { ref: 'refs/heads/topic', inputs: {}, ...main }, ref: 'refs/heads/topic' });
    expectRefused(x, 'refs/heads/topic');
    expect(await channels('br1')).toEqual([]);
  });

  it.each<[string, Run]>([
    ['a branch whose name starts with the default one', { eventName: 'push', payload: { ref: 'refs/heads/main-evil', ...main }, ref: 'refs/heads/main-evil' }],
    ['a tag named as the default branch', { eventName: 'push', payload: { ref: 'refs/tags/main', ...main }, ref: 'refs/tags/main' }],
    ['a pull request (its merge ref)', { eventName: 'pull_request', payload: pullPayload(3), ref: 'refs/pull/3/merge' }],
    ['a pull request from a fork', { eventName: 'pull_request', payload: pullPayload(4, true), ref: 'refs/pull/4/merge' }],
    ['a schedule on the default branch', { eventName: 'schedule', payload: main, ref: 'refs/heads/main' }],
    ['a payload whose default branch is not a string', { eventName: 'push', payload: { repository: { default_branch: ['main'] } }, ref: 'refs/heads/main' }],
    ['a payload whose default branch is an object', { eventName: 'push', payload: { repository: { default_branch: { toString: 'main' } } }, ref: 'refs/heads/main' }],
    ['a payload without a repository', { eventName: 'push', payload: {}, ref: 'refs/heads/main' }],
  ])('%s is refused', async (_what, o) => {
    const x = await run('br1', o);
    expectRefused(x, o.ref!);
    expect(await channels('br1')).toEqual([]);
  });

  it('a payload with a default branch that would be an escape sequence or a command is not shown raw', async () => {
    const evil = 'main\u001b[2J\n::set-output name=status::applied';
    const x = await run('br1', { eventName: 'push', payload: { repository: { default_branch: evil } }, ref: `refs/heads/${evil}` });
    expect(x.r.code).toBe(1);
    expect(x.r.stdout).not.toContain('\u001b');
    expect(x.r.stdout.split('\n').filter((l) => l.startsWith('::') && !l.startsWith('::error::'))).toEqual([]);
    expect(x.r.outputs.status).toBe('branch-refused');
    expect(x.sent).toBe(0);
  });

  it('a push to the default branch applies', async () => {
    const x = await run('br2', { eventName: 'push', payload: { ref: 'refs/heads/main', ...main }, ref: 'refs/heads/main' });
    expect(x.r.code, x.r.stdout).toBe(0);
    expect(x.r.outputs).toMatchObject({ mode: 'apply', status: 'applied', 'count-done': '1' });
    expect(await channels('br2')).toEqual(['hook']);
  });

  it('a manual run on a branch that apply-branches names applies; mode auto applies a push to it', async () => {
    const x = await run('br3', { eventName: 'workflow_dispatch', payload: { ref: 'refs/heads/release/eu', ...main }, ref: 'refs/heads/release/eu', inputs: { 'apply-branches': 'release/us\nrelease/eu\n' } });
    expect(x.r.code, x.r.stdout).toBe(0);
    expect(x.r.outputs).toMatchObject({ mode: 'apply', status: 'applied' });
    expect(await channels('br3')).toEqual(['hook']);
    const auto = await run('br4', { eventName: 'push', payload: { ref: 'refs/heads/release/us', ...main }, ref: 'refs/heads/release/us', inputs: { mode: 'auto', 'apply-branches': 'release/us' } });
    expect(auto.r.code, auto.r.stdout).toBe(0);
    expect(auto.r.outputs).toMatchObject({ mode: 'apply', status: 'applied' });
  });

  it.each([
    ['refs/heads/release', 'name the branch, not the ref ("release", not "refs/heads/release")'],
    ['release/*', '"release/*" is not a branch name (one exact name per line; no globs'],
  ])('apply-branches %j fails the step with a message naming the input', async (line, message) => {
    const x = await run('br1', { eventName: 'push', payload: { ref: 'refs/heads/main', ...main }, ref: 'refs/heads/main', inputs: { 'apply-branches': line } });
    expect(x.r.code).toBe(1);
    expect(x.r.stdout).toContain(`::error::postureops: input apply-branches: ${message}`);
    expect(x.sent).toBe(0);
  });
});

describe('the branch rules', () => {
  it('the default branch counts only when the payload gives a branch name', () => {
    expect(applyBranches('main', ['release'])).toEqual(['main', 'release']);
    expect(applyBranches('main', ['main'])).toEqual(['main']);
    for (const bad of [undefined, null, 42, ['main'], { name: 'main' }, '', '-x', 'a..b', 'a b', 'a\nb', 'x.lock', 'a//b', '/a', 'a/', '@', 'a@{1}', 'a*']) {
      expect(applyBranches(bad, [])).toEqual([]);
    }
    expect(isBranchName('release/eu-1.2')).toBe(true);
    expect(isBranchName('x'.repeat(256))).toBe(false);
  });

  it('refuses every event but push and workflow_dispatch, and every ref but refs/heads/ of a listed branch', () => {
    expect(applyRefusal('push', 'refs/heads/main', ['main'])).toBeUndefined();
    expect(applyRefusal('workflow_dispatch', 'refs/heads/rel', ['main', 'rel'])).toBeUndefined();
    expect(applyRefusal('push', 'refs/heads/main-evil', ['main'])).toMatch(/^this run is a "push" event on "refs\/heads\/main-evil", not a branch apply may run on: /);
    expect(applyRefusal('push', 'refs/tags/main', ['main'])).toBeDefined();
    expect(applyRefusal('push', 'main', ['main'])).toBeDefined();
    expect(applyRefusal('push', undefined, ['main'])).toContain('on no ref');
    expect(applyRefusal('pull_request', 'refs/heads/main', ['main'])).toMatch(/^this run is a "pull_request" event on "refs\/heads\/main": /);
    expect(applyRefusal('', 'refs/heads/main', ['main'])).toContain('an unknown event');
    expect(applyRefusal('push', 'refs/heads/main', [])).toContain('none (the event names no default branch and apply-branches is empty)');
    expect(applyRefusal('push', `refs/heads/${'x'.repeat(500)}`, ['main'])!.length).toBeLessThan(600);
    expect(detectMode('auto', 'push', 'refs/heads/rel', 'main', ['rel'])).toBe('apply');
    expect(detectMode('auto', 'push', 'refs/heads/main', ['main'])).toBe('plan');
    expect(detectMode('auto', 'workflow_dispatch', 'refs/heads/main', 'main')).toBe('plan');
  });
});
