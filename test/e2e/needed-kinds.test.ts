// The kinds a plan reads: only what an account needs, but never so few that a safety check goes
// blind. A channel prune may delete is checked against the live rules that still route to it, even
// when no rule is declared or pruned.

import { rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { makeRepo } from '../config/helpers.js';
import { cli, readsByCollection, serviceEnv } from './harness.js';

const channel = (name: string) => `kind: AlertChannel\nname: ${name}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${name}\n`;

describe('a pruned channel still used by a live rule', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['a'] });
    dir = await makeRepo({
      'postureops.yaml': 'accounts:\n  - name: a\n',
      'c1.yaml': channel('c1'),
      'c2.yaml': channel('c2'),
      'r1.yaml': 'kind: AlertRule\nname: r1\nspec:\n  channels: [c1]\n  severity: [critical]\n',
    });
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease'], { env: serviceEnv(emu) });
    expect(applied.code, applied.stderr).toBe(0);
  });

  afterAll(async () => {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused as in use: the rules are read although none is declared or pruned', async () => {
    await Promise.all([unlink(join(dir, 'c1.yaml')), unlink(join(dir, 'r1.yaml'))]);
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: a\nprune: {AlertChannel: true}\n');
    const res = await cli(['plan', dir, '--format', 'json'], { env: serviceEnv(emu) });
    expect(res.code).toBe(3);
    const plan = JSON.parse(res.stdout);
    expect(plan.refusal.code).toBe('in-use');
    expect(plan.refusal.details.join('\n')).toContain('AlertRule r1');
    // Report rules and data export rules use channels too; the resource groups the rules name are not read: rules
    // read only for the in-use check are never compared, so their group ids need no names.
    expect(readsByCollection(plan.apiCalls.byBucket)).toEqual({ AlertChannels: 1, AlertRules: 1, ReportRules: 1, DataExportRules: 1 });
    expect(plan.diagnostics ?? []).toEqual([]);
  });
});
