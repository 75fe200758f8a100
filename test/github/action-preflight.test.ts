// The Action's pre-flight: the estimate is in the log before the first request, and `max-duration`
// refuses a plan the rate-limit budget cannot read in time (nothing sent, the comment says why).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { serviceEnv } from '../e2e/harness.js';
import { pullPayload, runBundle, writeFiles } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ['acct-000'] }), startFakeGithub()]);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

describe('max-duration', () => {
  it('refuses a 300-account plan that needs more than 10 minutes, before any request, and says why in the comment', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
    const accounts = Array.from({ length: 300 }, (_, i) => `acct-${String(i).padStart(3, '0')}`);
    writeFiles(join(ws, 'posture'), {
      'postureops.yaml': `accounts:\n${accounts.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: acct-000\n`,
      'hook.yaml': 'kind: AlertChannel\nname: hook\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/a\n',
    });
    const before = emu.requestCount();
    const r = await runBundle({
      workspace: ws,
      eventName: 'pull_request',
      payload: pullPayload(71),
      inputs: { directory: 'posture', 'max-duration': '10m', 'changed-since': 'none' },
      env: serviceEnv(emu),
      apiUrl: gh.url,
    });
    expect(r.code).not.toBe(0);
    // 300 channel lists over the list and its search, 240 an hour: 60 beyond the first 240 (prune
    // is off and channels cannot be replaced, so no rule list is read for an in-use check).
    expect(r.stdout).toContain('Pre-flight (read): 301 requests in 3 rate-limit buckets; about 16 min of waiting for rate limits');
    expect(emu.requestCount()).toBe(before);
    const [comment] = gh.comments.get(71) ?? [];
    expect(comment.body).toContain('the run would take longer than max-duration');
    expect(comment.body).toContain('more than max-duration 10 min; nothing was sent');
    expect(comment.body).toContain('Shard the run');
  });

  it('an unreadable duration fails the step with what is expected', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
    writeFiles(join(ws, 'posture'), { 'postureops.yaml': 'accounts:\n  - name: acct-000\n' });
    const r = await runBundle({ workspace: ws, eventName: 'pull_request', payload: pullPayload(72), inputs: { directory: 'posture', 'max-duration': 'soon' }, env: serviceEnv(emu), apiUrl: gh.url });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain('input max-duration: expected a duration such as 10m, 2h, 1h30m, 90s or a number of seconds');
  });
});
