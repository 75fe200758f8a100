// Issue 29 through the bundled Action (node action-dist/index.js) against the emulator and the fake
// GitHub, all on 127.0.0.1: the Action registers and filters exactly what the loader read (after
// YAML decoding: `"\x24{env:X}"` is `${env:X}` to the loader), plus its own credentials, whether the
// configuration then loads or not; the CI's own variables can never be read.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { serviceEnv } from '../e2e/harness.js';
import { pullPayload, runBundle, TOKEN, writeFiles, type ActionResult } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ['rv1', 'rv2', 'rv3'], rateLimit: 100_000 }), startFakeGithub()]);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

const JOB_SECRET = 'job-secret_Value/0123"456789';
const RUNTIME_TOKEN = 'actions-runtime-token-abcdefghijklmnop';

function workspace(account: string, rule: string, root = `accounts:\n  - name: ${account}\nvariables: [JOB_*]\n`): string {
  const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  writeFiles(join(ws, 'posture'), {
    'postureops.yaml': root,
    'c.yaml': `kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://alerts.example/hook\n---\nkind: AlertRule\nname: r\nspec:\n  channels: [hook]\n  severity: [critical]\n${rule}`,
  });
  return ws;
}

function pr(ws: string, n: number, inputs: Record<string, string> = {}): Promise<ActionResult> {
  return runBundle({
    workspace: ws,
    eventName: 'pull_request',
    payload: pullPayload(n),
    inputs: { directory: 'posture', ...inputs },
    env: { ...serviceEnv(emu), JOB_SECRET, ACTIONS_RUNTIME_TOKEN: RUNTIME_TOKEN },
    apiUrl: gh.url,
  });
}

/** Nothing the run left holds the values, in any form a renderer gives them, but the mask registrations. */
function expectNowhere(r: ActionResult, n: number, values: readonly string[]): void {
  const log = r.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  const left = [log, r.stderr, r.summary, JSON.stringify(r.outputs), ...(gh.comments.get(n) ?? []).map((c) => c.body)];
  for (const text of left) {
    for (const v of values) {
      expect(text).not.toContain(v);
      expect(text).not.toContain(JSON.stringify(v).slice(1, -1));
    }
  }
}

describe('the Action masks what the loader read', () => {
  it('a value read through the YAML escape "\\x24{env:...}" is registered and filtered: log, comment, summary', async () => {
    const ws = workspace('rv1', '  eventCategory: ["\\x24{env:JOB_SECRET}", Cloud]\n');
    // The service refuses the category (its message may echo it): so does the rehearsal, masked.
    const rehearsed = await pr(ws, 402);
    expect(rehearsed.outputs).toMatchObject({ refused: 'true' });
    expect((gh.comments.get(402) ?? [])[0].body).toContain('rehearsal refused create rv1/AlertRule/r');
    expectNowhere(rehearsed, 402, [JOB_SECRET, RUNTIME_TOKEN, TOKEN]);
    const r = await pr(ws, 401, { rehearse: 'false' });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout.split('\n')).toContain(`::add-mask::${JOB_SECRET}`);
    // The carried category shows, masked, in the plan's routing cells.
    const [comment] = gh.comments.get(401) ?? [];
    expect(comment.body).toContain('(sensitive)');
    expectNowhere(r, 401, [JOB_SECRET, RUNTIME_TOKEN, TOKEN]);
  });

  it("the CI's own variables cannot be read, whatever the escape: an error at the line, the value nowhere", async () => {
    const ws = workspace('rv2', '  eventCategory: ["\\u0024{env:ACTIONS_RUNTIME_TOKEN}"]\n');
    const r = await pr(ws, 402);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/::error title=env-forbidden,file=posture\/c\.yaml,line=13,col=19::environment variable ACTIONS_RUNTIME_TOKEN/);
    expect(r.outputs.status).toBe('invalid');
    expect(r.stdout.split('\n')).not.toContain(`::add-mask::${RUNTIME_TOKEN}`);
    expectNowhere(r, 402, [RUNTIME_TOKEN, TOKEN]);
  });

  it('a configuration that does not load still has every value it read registered and filtered before the failure is shown', async () => {
    // A block scalar reads the variable; an unknown member elsewhere makes the document invalid.
    const ws = workspace('rv3', '  eventCategory: [Cloud]\n  description: |\n    about ${env:JOB_SECRET}\n  colour: red\n');
    const r = await pr(ws, 403);
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('invalid');
    expect(r.stdout.split('\n')).toContain(`::add-mask::${JOB_SECRET}`);
    const [comment] = gh.comments.get(403) ?? [];
    expect(comment.body).toContain('colour');
    expectNowhere(r, 403, [JOB_SECRET, RUNTIME_TOKEN, TOKEN]);
  });
});
