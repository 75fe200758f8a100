// Issue 11, "Conventions", end to end against the emulator: what a person reads of a plan.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, rawApi, serviceEnv } from './harness.js';

const ROOT = 'accounts:\n  - name: prod\ndefaults:\n  account: prod\n';
const CONFIG = `kind: AlertChannel
name: audit-webhook
spec:
  type: Webhook
  data:
    webhookUrl: https://audit.example.com/hook
---
kind: AlertRule
name: critical-cloud
spec:
  channels: [audit-webhook]
  severity: [critical, high]
  eventCategory: [Cloud, Compliance]
`;

describe('severity names in every rendering of a plan', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    dir = await mkdtemp(join(tmpdir(), 'postureops-conventions-'));
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
    await writeFile(join(dir, 'config.yaml'), CONFIG);
    env = serviceEnv(emu);
    const applied = await cli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    // Someone widens the rule in the console: the service answers with integers.
    const rule = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body.data[0];
    const filters = { ...rule.filters, eventCategory: rule.filters.eventcategory, resourceGroups: [], severity: [1, 2, 3] };
    expect((await rawApi(emu, 'PATCH', `/api/v2/AlertRules/${rule.mcGuid}`, { account: 'prod', body: { filters } })).status).toBe(200);
  });

  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('text and Markdown show the names the file uses, on both sides of the diff', async () => {
    for (const format of ['text', 'markdown']) {
      const res = await cli(['plan', dir, '--format', format], { env });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/^\s*- critical$/m);
      expect(res.stdout).toMatch(/^\s*- high$/m);
      expect(res.stdout).toMatch(/^\s*-\s+- medium$/m);
      expect(res.stdout).not.toMatch(/^\s*[-+]?\s+- [1-5]$/m);
    }
  });

  it('JSON shows the names in before, after and the diff', async () => {
    const res = await cli(['plan', dir, '--format', 'json'], { env });
    expect(res.code, res.stderr).toBe(0);
    const rule = JSON.parse(res.stdout).changes.find((c: { kind: string }) => c.kind === 'AlertRule');
    expect(rule.before.severity).toEqual(['critical', 'high', 'medium']);
    expect(rule.after.severity).toEqual(['critical', 'high']);
    expect(rule.diff).toEqual([{ op: 'remove', path: '/severity/2' }]);
  });

  it('apply still sends the integers the service takes, and converges', async () => {
    const applied = await cli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const rule = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body.data[0];
    expect(rule.filters.severity).toEqual([1, 2]);
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });
});
