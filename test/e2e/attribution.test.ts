// Issue 13, item 4 through the real CLI: a channel changed through the API with a second key shows
// that key's user and the time beside the change; --attribute shows the audit entry of the change.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli, oneLine, rawApi, serviceEnv } from './harness.js';

const ROOT = 'accounts:\n  - name: prod\n  - name: staging\ndefaults:\n  account: prod\n';
const CHANNEL = `kind: AlertChannel
name: ops-hook
account: "*"
spec:
  type: Webhook
  data:
    webhookUrl: https://hooks.example.com/ops
`;
const SECOND = { keyId: 'SECONDKEY', secret: 'second-secret', role: 'org-admin' as const, user: 'second@example.com' };

let emu: RunningEmulator;
let dir: string;
let env: Record<string, string>;
/** The channel as the second key left it in prod, and an unmanaged one it created there. */
let changed: { intgGuid: string; createdOrUpdatedTime: string };
let stray: { intgGuid: string; createdOrUpdatedTime: string };

beforeAll(async () => {
  emu = await startEmulator({ accounts: ['prod', 'staging'], keys: [SECOND] });
  env = serviceEnv(emu);
  dir = await mkdtemp(join(tmpdir(), 'postureops-attr-'));
  await writeFile(join(dir, 'postureops.yaml'), ROOT);
  await writeFile(join(dir, 'channels.yaml'), CHANNEL);
  const applied = await cli(['apply', dir, '--auto-approve'], { env });
  expect(applied.code, applied.stderr).toBe(0);

  const second = { url: emu.url, keyId: SECOND.keyId, secret: SECOND.secret };
  const list = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
  const id = list.body.data.find((c: { name: string }) => c.name === 'ops-hook').intgGuid as string;
  const patched = await rawApi(second, 'PATCH', `/api/v2/AlertChannels/${id}`, { account: 'prod', body: { data: { webhookUrl: 'https://hooks.example.com/elsewhere' } } });
  expect(patched.status).toBe(200);
  changed = patched.body.data;
  const created = await rawApi(second, 'POST', '/api/v2/AlertChannels', {
    account: 'prod',
    body: { name: 'stray-hook', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://hooks.example.com/stray' } },
  });
  expect(created.status).toBe(201);
  stray = created.body.data;
});

afterAll(async () => {
  await emu?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('drift attribution', () => {
  it('plan shows the second key user and the time of the record beside the change, with no extra request', async () => {
    const res = await cli(['plan', dir, '--verbose'], { env });
    expect(res.code, res.stderr).toBe(0);
    const at = new Date(changed.createdOrUpdatedTime).toISOString();
    expect(oneLine(res.stdout)).toContain(`~ update AlertChannel ops-hook [${changed.intgGuid}] (${join(dir, 'channels.yaml')}:1:1) last changed by second@example.com at ${at} `);
    expect(res.stdout).toContain(`\n      last changed by second@example.com at ${at}\n`);
    expect(oneLine(res.stdout)).toContain(`prod AlertChannel stray-hook [${stray.intgGuid}] (last changed by second@example.com at ${new Date(stray.createdOrUpdatedTime).toISOString()})`);
    // staging was never touched by the second key: its resources name the default key's user.
    expect(res.stdout).not.toContain('audit log');
    expect(res.stderr).not.toContain('AuditLogs');
  });

  it('--attribute reads the audit log of the drifted account only and shows the entries under each drifted resource', async () => {
    const res = await cli(['plan', dir, '--attribute', '--verbose'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/\n {6}audit log:\n {8}\S+ second@example\.com update: /);
    expect(oneLine(res.stdout)).toMatch(
      new RegExp(`~ update AlertChannel ops-hook .* last changed by second@example\\.com.* audit log: \\S+ second@example\\.com update: Updated alert channel ops-hook \\(${changed.intgGuid}\\) \\S+ admin@example\\.com create: Created alert channel ops-hook \\(${changed.intgGuid}\\) `),
    );
    expect(oneLine(res.stdout)).toContain(` ${new Date(stray.createdOrUpdatedTime).toISOString()} second@example.com create: Created alert channel stray-hook (${stray.intgGuid})`);
    // One search, for prod: staging has no drift.
    const searches = res.stderr.split('\n').filter((l) => l.startsWith('POST /api/v2/AuditLogs/search'));
    expect(searches).toHaveLength(1);
    expect(searches[0]).toContain('[prod]');
  });

  it('--attribute --format json carries the last change, the entries and what was searched', async () => {
    const res = await cli(['plan', dir, '--attribute', '--format', 'json'], { env });
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout);
    const update = doc.changes.find((c: { name: string; account: string }) => c.name === 'ops-hook' && c.account === 'prod');
    expect(update.lastChange).toEqual({ by: 'second@example.com', at: new Date(changed.createdOrUpdatedTime).toISOString() });
    expect(update.audit[0]).toMatchObject({ user: 'second@example.com', action: 'update', description: `Updated alert channel ops-hook (${changed.intgGuid})` });
    expect(doc.attribution).toMatchObject({ accounts: ['prod'], days: 7 });
    expect(doc.unmanaged[0]).toMatchObject({ name: 'stray-hook', lastChange: { by: 'second@example.com' }, audit: [{ user: 'second@example.com', action: 'create' }] });
  });
});
