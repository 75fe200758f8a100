// Reason codes in saved plans (format version 2): kept through save and read, covered by the checksum
// and the MAC, checked against the closed union, compared by `apply --plan`; a version 1 file (no
// codes) is refused as a plan file of another version, by the engine and by the CLI (exit 1).

import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiagnosticsError } from '../../src/model/diagnostics.js';
import { plan as buildPlan } from '../../src/plan/steps/plan.js';
import { planDifferences } from '../../src/plan/saved/plan-compare.js';
import { PLAN_KEY_MIN_LENGTH, planMac } from '../../src/plan/saved/plan-file.js';
import { readPlan, savePlan } from '../../src/run/plan-files.js';
import { type Plan, PLAN_FORMAT_VERSION } from '../../src/model/plan.js';
import { renderPlan } from '../../src/render/index.js';
import { cli, oneLine } from '../e2e/harness.js';
import { desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

const KEY = 'r'.repeat(PLAN_KEY_MIN_LENGTH);
const hook = (url: string) => ({ type: 'Webhook', data: { url } });

/** A replace (type changed), the rule re-pointed to it, and a pruned channel: three coded reasons. */
function coded(): Plan {
  const d = desiredState([desired('Channel', 'ops', { type: 'Slack', data: { url: 'u' } }), desired('Rule', 'r', { channels: ['ops'], severity: [1] })], { Channel: true });
  const l = liveState([live('Channel', 'ops', 'C1', hook('u')), live('Channel', 'gone', 'C2', hook('g')), live('Rule', 'r', 'R1', { channels: ['ops'], severity: [1] })]);
  const result = buildPlan(d, l, { kinds: FAKE_KINDS, force: true });
  expect(result.plan).toBeDefined();
  return result.plan!;
}

const codesOf = (p: Plan) => p.changes.map((c) => [c.key, c.reasonCode]);

/** Rewrites a saved file's plan with a correct checksum; given a key, signs it again, else keeps the MAC it had. */
async function rewrite(file: string, edit: (plan: Record<string, any>) => void, key?: string): Promise<void> {
  const { checksum: _c, mac, ...planValue } = JSON.parse(await readFile(file, 'utf8'));
  edit(planValue);
  const checksum = createHash('sha256').update(JSON.stringify(planValue)).digest('hex');
  const signature = key ? planMac(planValue, key) : mac;
  await writeFile(file, JSON.stringify({ ...planValue, checksum, ...(signature !== undefined ? { mac: signature } : {}) }, null, 2));
}

async function refusal(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DiagnosticsError);
  return (err as DiagnosticsError).diagnostics[0];
}

describe('reason codes in saved plans', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'postureops-reasons-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the planner codes its reasons, and plan JSON and a signed plan file carry them', async () => {
    const p = coded();
    expect(codesOf(p)).toEqual(
      expect.arrayContaining([
        ['prod/Channel/ops', 'replace-because-cannot-update'],
        ['prod/Rule/r', 'update-because-reference-replaced'],
        ['prod/Channel/gone', 'delete-because-not-declared'],
      ]),
    );
    const doc = JSON.parse(renderPlan(p, 'json', { color: false }));
    expect(doc.formatVersion).toBe(2);
    expect(doc.changes.map((c: { key: string; reasonCode?: string }) => [c.key, c.reasonCode])).toEqual(codesOf(p));

    const file = join(dir, 'signed.json');
    await savePlan(file, p, KEY);
    expect(JSON.parse(await readFile(file, 'utf8')).formatVersion).toBe(PLAN_FORMAT_VERSION);
    const read = await readPlan(file, KEY);
    expect(read.signature).toBe('verified');
    expect(codesOf(read.plan)).toEqual(codesOf(p));
    expect(planDifferences(read.plan, p)).toEqual([]);
  });

  it('the MAC covers the codes: another code in a signed file is refused as not signed with the key', async () => {
    const file = join(dir, 'recoded.json');
    await savePlan(file, coded(), KEY);
    await rewrite(file, (plan) => {
      plan.changes.find((c: { key: string }) => c.key === 'prod/Channel/gone').reasonCode = 'delete-because-not-in-parent';
    });
    expect(await refusal(readPlan(file, KEY))).toMatchObject({ code: 'plan-file-mac-wrong' });
  });

  it('apply --plan compares the codes: a saved change with another code differs from the derived one', () => {
    const derived = coded();
    const saved = structuredClone(derived);
    saved.changes.find((c) => c.key === 'prod/Channel/gone')!.reasonCode = 'delete-because-not-in-parent';
    expect(planDifferences(saved, derived)).toEqual(['delete "prod/Channel/gone": reasonCode differs']);
  });

  it('a code outside the union, or a reason without its code, is a damaged plan', async () => {
    const file = join(dir, 'damaged.json');
    await savePlan(file, coded());
    await rewrite(file, (plan) => {
      plan.changes[0].reasonCode = 'because-i-said-so';
      delete plan.changes[1].reasonCode;
    });
    const d = await refusal(readPlan(file));
    expect(d.code).toBe('plan-file-corrupt');
    expect(d.message).toContain('changes[0].reasonCode must be one of replace-because-cannot-update, ');
    expect(d.message).toContain('changes[1].reason and reasonCode go together');
  });

  it('a version 1 plan (no codes) is refused, saying it is older, signed or not; the CLI exits 1', async () => {
    const file = join(dir, 'v1.json');
    await savePlan(file, coded(), KEY);
    await rewrite(
      file,
      (plan) => {
        plan.formatVersion = 1;
        for (const c of plan.changes) delete c.reasonCode;
      },
      KEY,
    );
    const expected = {
      code: 'plan-file-version',
      message: `plan file ${file} has format version 1; this postureops reads version 2 only (the file was saved by an older postureops)`,
      hint: 'create the plan again with this version',
    };
    expect(await refusal(readPlan(file, KEY))).toMatchObject(expected);
    expect(await refusal(readPlan(file))).toMatchObject(expected);

    const shown = await cli(['show', file], { env: {} });
    expect(shown.code).toBe(1);
    expect(oneLine(shown.stderr)).toContain('has format version 1; this postureops reads version 2 only');
    expect(shown.stderr).not.toMatch(/\n\s+at /);
  });
});
