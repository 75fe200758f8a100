// Issue 35 "Done when", end to end against the emulator: on a repository whose pager channel the
// service reports failing, `routes --live` marks the silent cells (and `routes test --live` names the
// failing channel), a `healthy: true` requirement refuses the plan that changes the cell while an
// unrelated change goes through, and `apply --test-channels` names the channel that failed its test
// (exit 1, the requirement that relies on it named); `test-channels` tests without applying.

import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, oneLine, serviceEnv } from './harness.js';

const ROOT = `accounts:
  - name: prod
routing:
  requirements:
    - name: cloud-pages
      accounts: prod
      eventCategory: [Cloud]
      severity: [critical, high]
      reach: {types: [PagerDutyApi]}
      healthy: true
variables: [PD_KEY, HOOK_URL]
`;
const FILES = `kind: AlertChannel
name: pager
spec:
  type: PagerDutyApi
  data:
    apiIntgKey: \${env:PD_KEY}
---
kind: AlertChannel
name: hook
spec:
  type: Webhook
  data:
    webhookUrl: \${env:HOOK_URL}
---
kind: AlertRule
name: critical
spec:
  channels: [pager, hook]
  severity: [critical]
  eventCategory: [Cloud]
---
kind: AlertRule
name: high
spec:
  channels: [pager]
  severity: [high]
  eventCategory: [Cloud]
`;
const DETAIL = 'PagerDuty answered 400: invalid routing key';

// One account's story, step after step: the order of these tests is the story's, also when the suite is shuffled.
describe('a repository whose pager channel the service reports failing', { shuffle: false }, () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;
  const write = (files: string) => writeFile(join(dir, 'alerts.yaml'), files);

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    dir = mkdtempSync(join(tmpdir(), 'postureops-health-'));
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
    await write(FILES);
    env = { ...serviceEnv(emu), PD_KEY: 'pd-key-0815', HOOK_URL: 'https://hooks.example.com/team' };
    // New channels are unknown until tested: the first apply is forced, and its tests make them healthy.
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--force', '--test-channels'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.match(/test ok/g)).toHaveLength(2);
    emu.failChannel('pager', DETAIL);
  });

  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('routes --live marks the silent cell and the degraded one, and names the failing channel with the service\'s detail', async () => {
    const text = await cli(['routes', dir, '--live'], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Silent, every channel failing (1): Cloud/high');
    expect(text.stdout).toContain('Degraded, a channel failing (1): Cloud/critical');
    expect(oneLine(text.stdout)).toMatch(/pager \(PagerDutyApi\) — failing since its last success at \d{4}-\d\d-\d\d \d\d:\d\d UTC: PagerDuty answered 400: invalid routing key/);
    const json = JSON.parse((await cli(['routes', dir, '--live', '--format', 'json'], { env })).stdout);
    expect(json.details.prod.silent).toEqual([{ eventCategory: 'Cloud', severity: 'high' }]);
    expect(json.details.prod.channels.find((c: { name: string }) => c.name === 'pager').health).toMatchObject({ state: 'failing', detail: DETAIL });
    const test = await cli(['routes', 'test', dir, '--live', '--account', 'prod', '--category', 'Cloud', '--severity', 'high'], { env });
    expect(test.stdout).toContain('Silent: failing channel pager.');
  });

  it('a healthy: true requirement refuses the plan that changes the cell; an unrelated change is planned, the outage shown', async () => {
    await write(FILES.replace('channels: [pager, hook]', 'channels: [pager]'));
    try {
      const refused = await cli(['plan', dir, '--format', 'json'], { env });
      expect(refused.code, refused.stderr).toBe(3);
      const plan = JSON.parse(refused.stdout);
      expect(plan.refusal.code).toBe('routing-requirement');
      expect(plan.refusal.details).toEqual([
        'routing requirement "cloud-pages" fails in 1 cell (none reaches a healthy PagerDutyApi channel): prod: Cloud/critical',
        'failing channels (as the service reports them): prod/pager',
      ]);
      // Cloud/high was silent before and this plan does not touch it: shown, not the reason for the refusal.
      expect(plan.routing.outages).toMatchObject([{ requirement: 'cloud-pages', accounts: [{ account: 'prod', cells: ['Cloud/high'] }], healthy: true }]);
    } finally {
      await write(FILES);
    }
    await write(`${FILES}---\nkind: AlertChannel\nname: audit\nspec:\n  type: Webhook\n  data:\n    webhookUrl: \${env:HOOK_URL}\n`);
    try {
      const unrelated = await cli(['plan', dir], { env });
      expect(unrelated.code, unrelated.stdout).toBe(0);
      expect(oneLine(unrelated.stdout)).toContain('Routing requirement cloud-pages has no healthy channel in cells this plan leaves as they were (an outage; not refused): prod: Cloud/critical, Cloud/high');
      expect(oneLine(unrelated.stdout)).toContain('silent, every channel failing: Cloud/high');
    } finally {
      await write(FILES);
    }
  });

  it('apply --test-channels names the channel that failed its test and fails the exit code; test-channels tests without applying', async () => {
    emu.failChannel('pager2', 'destination refused the alert');
    const files = `${FILES.replace('channels: [pager]', 'channels: [pager, pager2]')}---\nkind: AlertChannel\nname: pager2\nspec:\n  type: PagerDutyApi\n  data:\n    apiIntgKey: \${env:PD_KEY}\n`;
    await write(files);
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--force', '--test-channels'], { env });
    expect(applied.code, applied.stdout).toBe(1);
    expect(oneLine(applied.stdout)).toMatch(/Test of AlertChannel pager2 \(prod\) failed, and routing requirement cloud-pages relies on it: Test of alert channel pager2 \(\S+\) failed: destination refused the alert/);
    expect(applied.stdout).toContain('Apply: 2 done, 0 failed');

    const tested = await cli(['test-channels', dir, '--target', 'prod/AlertChannel/pager*', '--format', 'json'], { env });
    expect(tested.code, tested.stderr).toBe(1);
    const results = JSON.parse(tested.stdout).results;
    expect(results.map((r: { name: string; ok: boolean }) => [r.name, r.ok])).toEqual([
      ['pager', false],
      ['pager2', false],
    ]);
    expect(results[0].message).toContain(DETAIL);
    emu.healChannel('pager');
    emu.healChannel('pager2');
    const healed = await cli(['test-channels', dir, '--target', 'AlertChannel/pager2'], { env });
    expect(healed.code, healed.stdout).toBe(0);
    expect(healed.stdout).toContain('Tested 1 channel: every test succeeded.');
    const none = await cli(['test-channels', dir, '--target', 'AlertChannel/nope'], { env });
    expect(none.code).toBe(1);
    expect(oneLine(none.stderr)).toContain('--target AlertChannel/nope: no live AlertChannel of prod matches');
    expect((await readFile(join(dir, 'alerts.yaml'), 'utf8')).includes('pager2')).toBe(true);
  });
});
