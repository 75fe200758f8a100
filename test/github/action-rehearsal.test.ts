// The bundled Action rehearses too (issue 35): its plan comment carries what the rehearsal found,
// and its apply stops before its first write when the rehearsal refuses a change. Against the
// emulator (the service, counting what it receives) and a fake GitHub API.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceivedRequest, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { rawApi, releasedLeases, serviceEnv } from '../e2e/harness.js';
import { pullPayload, runBundle, SLACK_URL, TOKEN, writeFiles } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

const ACCOUNTS = ['reh1', 'reh2', 'reh3'];
let emu: RunningEmulator;
let gh: FakeGithub;
const seen: ReceivedRequest[] = [];

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ACCOUNTS, rateLimit: 100_000, onRequest: (r) => seen.push(r) }), startFakeGithub()]);
  await releasedLeases(emu, ACCOUNTS);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

const DD_KEY = 'dd-action-key-93b2';
const secrets = () => ({ ...serviceEnv(emu), SLACK_URL, DD_KEY });

/** A Slack channel; with `refused`, a Datadog channel whose site the service does not know. */
function workspace(account: string, refused: boolean): string {
  const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  const datadog = `---\nkind: AlertChannel\nname: z-datadog\nspec:\n  type: Datadog\n  data:\n    apiKey: \${env:DD_KEY}\n    datadogSite: us5\n    datadogType: Logs Detail\n`;
  writeFiles(join(ws, 'posture'), {
    'postureops.yaml': `accounts:\n  - name: ${account}\nvariables: [SLACK_URL, DD_KEY]\n`,
    'channels.yaml': `kind: AlertChannel\nname: a-slack\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: \${env:SLACK_URL}\n${refused ? datadog : ''}`,
  });
  return ws;
}

const writes = (from: number) => seen.slice(from).filter((r) => r.method !== 'GET' && !r.path.endsWith('/search') && !r.path.endsWith('/access/tokens'));

describe('the Action rehearses', () => {
  it('its plan comment says the rehearsal accepted the changes and the result plans clean; rehearse: false leaves it out', async () => {
    const ws = workspace('reh1', false);
    const from = seen.length;
    const r = await runBundle({ workspace: ws, eventName: 'pull_request', payload: pullPayload(351), inputs: { directory: 'posture' }, env: secrets(), apiUrl: gh.url });
    expect(r.code, r.stdout).toBe(0);
    const [comment] = gh.comments.get(351) ?? [];
    expect(comment.body).toContain('\n\nrehearsed: 1 change accepted, the result plans clean\n\n');
    expect(writes(from)).toEqual([]);
    const off = await runBundle({ workspace: ws, eventName: 'pull_request', payload: pullPayload(352), inputs: { directory: 'posture', rehearse: 'false' }, env: secrets(), apiUrl: gh.url });
    expect(off.code, off.stdout).toBe(0);
    expect((gh.comments.get(352) ?? [])[0].body).not.toContain('rehearsed');
  });

  it('a change the rehearsal refuses: the comment names it, masked; the apply on push stops before its first write', async () => {
    const ws = workspace('reh2', true);
    const pull = await runBundle({ workspace: ws, eventName: 'pull_request', payload: pullPayload(353), inputs: { directory: 'posture' }, env: secrets(), apiUrl: gh.url });
    expect(pull.outputs).toMatchObject({ refused: 'true' });
    const [comment] = gh.comments.get(353) ?? [];
    expect(comment.body).toContain('rehearsal');
    expect(comment.body).toContain('data/datadogSite: must be one of');
    for (const v of [DD_KEY, SLACK_URL, emu.secret, TOKEN]) expect(comment.body + pull.summary).not.toContain(v);

    const from = seen.length;
    const push = await runBundle({
      workspace: ws,
      eventName: 'push',
      payload: { ref: 'refs/heads/main', repository: { default_branch: 'main' } },
      ref: 'refs/heads/main',
      inputs: { directory: 'posture' },
      env: secrets(),
      apiUrl: gh.url,
    });
    expect(push.code).not.toBe(0);
    expect(push.outputs).toMatchObject({ mode: 'apply', refused: 'true' });
    expect(push.stdout).toContain('rehearsal');
    // The lease taken and released (the tool's own record) is all it wrote: no channel.
    expect(writes(from).filter((w) => w.path.includes('AlertChannels'))).toEqual([]);
    expect((await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'reh2' })).body.data).toEqual([]);
    for (const v of [DD_KEY, SLACK_URL, emu.secret]) expect(push.stdout.split('\n').filter((l) => !l.startsWith('::add-mask::')).join('\n') + push.summary).not.toContain(v);
  });
});
