// The bundled Action with POSTUREOPS_PLAN_KEY: shards sign the plans they upload, the merge job
// refuses a shard plan edited between the jobs (checksum recomputed, so only the MAC can tell), and
// the key never reaches the log or the comment.

import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { serviceEnv } from '../e2e/harness.js';
import { pullPayload, runBundle, writeFiles, type ActionResult } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

const ACCOUNTS = ['pk1', 'pk2'];
const KEY = 'plan-key-for-the-action-0123456789abcdef';

let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ACCOUNTS, rateLimit: 100_000 }), startFakeGithub()]);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

const hook = (name: string, account: string) => `kind: AlertChannel\nname: ${name}\naccount: ${account}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${name}\n`;

/** The log as a reader sees it: the runner consumes `::add-mask::` lines (which register the key to mask). */
const visible = (stdout: string): string => stdout.split('\n').filter((l) => !l.startsWith('::add-mask::')).join('\n');

function run(ws: string, inputs: Record<string, string>, env: Record<string, string>): Promise<ActionResult> {
  return runBundle({ workspace: ws, eventName: 'pull_request', payload: pullPayload(81), inputs: { directory: 'posture', ...inputs }, env, apiUrl: gh.url });
}

describe('POSTUREOPS_PLAN_KEY in the Action', () => {
  it('shards sign their plans; the merge job accepts them, and refuses one edited between the jobs', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-key-'));
    writeFiles(join(ws, 'posture'), {
      'postureops.yaml': `accounts:\n${ACCOUNTS.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: pk1\n`,
      ...Object.fromEntries(ACCOUNTS.map((a) => [`${a}.yaml`, hook(`hook-${a}`, a)])),
    });
    const env = { ...serviceEnv(emu), POSTUREOPS_PLAN_KEY: KEY };
    for (const [i, shard] of ['1/2', '2/2'].entries()) {
      const r = await run(ws, { shard, 'plan-out': `plans/shard-${i + 1}.json` }, env);
      expect(r.code, r.stdout.slice(-3000)).toBe(0);
      expect(r.stdout).toContain(`::add-mask::${KEY}`);
      expect(visible(r.stdout)).not.toContain(KEY);
      expect(JSON.parse(readFileSync(join(ws, 'plans', `shard-${i + 1}.json`), 'utf8')).mac).toMatch(/^[0-9a-f]{64}$/);
    }
    const merged = await run(ws, { mode: 'merge', plans: 'plans', 'plan-out': 'merged.json' }, { POSTUREOPS_PLAN_KEY: KEY });
    expect(merged.code, merged.stdout).toBe(0);
    expect(merged.outputs).toMatchObject({ status: 'planned', 'count-create': '2' });
    expect(JSON.parse(readFileSync(join(ws, 'merged.json'), 'utf8')).mac).toMatch(/^[0-9a-f]{64}$/);

    // An artifact replaced between the jobs: a change's URL edited, the checksum recomputed.
    const file = join(ws, 'plans', 'shard-1.json');
    const { checksum: _c, mac, ...plan } = JSON.parse(readFileSync(file, 'utf8'));
    plan.changes[0].after.data.webhookUrl = 'https://attacker.example/x';
    writeFileSync(file, JSON.stringify({ ...plan, checksum: createHash('sha256').update(JSON.stringify(plan)).digest('hex'), mac }));
    const refused = await run(ws, { mode: 'merge', plans: 'plans' }, { POSTUREOPS_PLAN_KEY: KEY });
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain('does not carry a valid signature for POSTUREOPS_PLAN_KEY');
    expect(visible(refused.stdout)).not.toContain(KEY);
    const comments = gh.comments.get(81) ?? [];
    expect(comments.at(-1)?.body).toContain('does not carry a valid signature');
    expect(comments.at(-1)?.body).not.toContain('attacker.example');
  });
});
