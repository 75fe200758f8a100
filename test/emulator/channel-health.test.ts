// Channel health (issue 35, "The emulator models health"): state {ok, lastUpdatedTime,
// lastSuccessfulTime, details} per alert channel; a failing channel (failChannels, failChannel(),
// --fail-channel) answers ok false with a details text, its test 400 and its lastSuccessfulTime stops
// moving; a healthy channel's test answers 204 and moves it; a channel never tested has 0; without
// the option it heals and the state file remembers the last success.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manualClock, type ManualClock } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { boot, parse, slack, type Harness } from './helpers.js';

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
let h: Harness | undefined;
let dir: string;
let clock: ManualClock;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'emu-health-'));
  clock = manualClock(T0);
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const state = async (harness: Harness, id: string) => (await harness.call('GET', `AlertChannels/${id}`)).body.data.state;

describe('channel health', () => {
  it('a new channel is ok and never tested (lastSuccessfulTime 0); a successful test answers 204 and moves it', async () => {
    h = await boot({ clock });
    const id = (await h.call('POST', 'AlertChannels', { body: slack('ops') })).body.data.intgGuid;
    expect(await state(h, id)).toEqual({ ok: true, lastUpdatedTime: T0, lastSuccessfulTime: 0, details: {} });
    clock.advance(60_000);
    const test = await h.call('POST', `AlertChannels/${id}/test`);
    expect(test.status).toBe(204);
    expect(await state(h, id)).toEqual({ ok: true, lastUpdatedTime: T0 + 60_000, lastSuccessfulTime: T0 + 60_000, details: {} });
  });

  it('a channel failing from the start: ok false with details, its test 400, lastSuccessfulTime stops moving; others stay healthy', async () => {
    h = await boot({ clock, failChannels: ['pager'] });
    const pager = (await h.call('POST', 'AlertChannels', { body: slack('pager') })).body.data.intgGuid;
    const other = (await h.call('POST', 'AlertChannels', { body: slack('ops') })).body.data.intgGuid;
    const staging = (await h.call('POST', 'AlertChannels', { body: slack('pager'), account: 'staging' })).body.data.intgGuid;
    clock.advance(1000);
    const s = await state(h, pager);
    expect(s).toMatchObject({ ok: false, lastSuccessfulTime: 0, details: { message: expect.stringContaining('Delivery failed') } });
    const test = await h.call('POST', `AlertChannels/${pager}/test`);
    expect(test.status).toBe(400);
    expect(test.body.message).toBe(`Test of alert channel pager (${pager}) failed: ${s.details.message}`);
    expect((await state(h, pager)).lastSuccessfulTime).toBe(0);
    expect((await h.call('POST', `AlertChannels/${other}/test`)).status).toBe(204);
    expect((await state(h, other)).ok).toBe(true);
    // A name names the channels of that name in every account.
    expect((await h.call('GET', `AlertChannels/${staging}`, { account: 'staging' })).body.data.state.ok).toBe(false);
    // Lists and searches show the same state.
    const listed = (await h.call('GET', 'AlertChannels')).body.data.find((c: any) => c.intgGuid === pager);
    expect(listed.state.ok).toBe(false);
  });

  it('in-process: failChannel() stops a healthy channel (by name or intgGuid), healChannel() heals it with its last success kept', async () => {
    h = await boot({ clock });
    const id = (await h.call('POST', 'AlertChannels', { body: slack('ops') })).body.data.intgGuid;
    clock.advance(1000);
    await h.call('POST', `AlertChannels/${id}/test`);
    clock.advance(1000);
    h.emu.failChannel(id, 'webhook revoked (HTTP 404 from hooks.slack.com)');
    expect(await state(h, id)).toEqual({
      ok: false,
      lastUpdatedTime: T0 + 2000,
      lastSuccessfulTime: T0 + 1000,
      details: { message: 'webhook revoked (HTTP 404 from hooks.slack.com)' },
    });
    expect((await h.call('POST', `AlertChannels/${id}/test`)).body.message).toContain('webhook revoked');
    expect(h.emu.healChannel(id)).toBe(true);
    expect(h.emu.healChannel(id)).toBe(false);
    expect(await state(h, id)).toMatchObject({ ok: true, lastSuccessfulTime: T0 + 1000 });
  });

  it('other integrations stay healthy since written and have no test', async () => {
    h = await boot({ clock, failChannels: ['aws'] });
    const body = { name: 'aws', type: 'AwsCfg', enabled: 1, data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/x', externalId: 'e' } } };
    const r = await h.call('POST', 'CloudAccounts', { body });
    expect(r.body.data.state).toEqual({ ok: true, lastUpdatedTime: T0, lastSuccessfulTime: T0, details: {} });
  });

  it('heals at a restart without the option; the state file remembers the last success and the failing channels', async () => {
    const statePath = join(dir, 'state.json');
    const creds = { keyId: 'K', secret: 'S', statePath, clock };
    h = await boot(creds);
    const id = (await h.call('POST', 'AlertChannels', { body: slack('pager') })).body.data.intgGuid;
    clock.advance(5000);
    await h.call('POST', `AlertChannels/${id}/test`);
    await h.close();

    clock.advance(5000);
    h = await boot({ ...creds, failChannels: ['pager'] });
    expect(JSON.parse(readFileSync(statePath, 'utf8')).failingChannels).toEqual([{ name: 'pager', since: T0 + 10_000 }]);
    expect(await state(h, id)).toMatchObject({ ok: false, lastSuccessfulTime: T0 + 5000, lastUpdatedTime: T0 + 10_000 });
    await h.close();

    // Still failing at the next start: it has failed since the first.
    clock.advance(5000);
    h = await boot({ ...creds, failChannels: ['pager'] });
    expect((await state(h, id)).lastUpdatedTime).toBe(T0 + 10_000);
    await h.close();

    h = await boot(creds);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).failingChannels).toEqual([]);
    expect(await state(h, id)).toEqual({ ok: true, lastUpdatedTime: T0 + 5000, lastSuccessfulTime: T0 + 5000, details: {} });
  });

  it('refuses an empty channel name', async () => {
    await expect(boot({ failChannels: [' '] })).rejects.toThrow('failChannels');
  });
});

/** `postureops emulator` as the bin runs it; resolves with its base URL once it listens. */
function startCli(args: string[]): Promise<{ url: string; stop: () => Promise<void>; out: () => string }> {
  const child = spawn(process.execPath, [join(packageRoot(), 'dist', 'cmd', 'postureops.js'), 'emulator', '--port', '0', ...args], { env: { PATH: process.env.PATH ?? '' } });
  let out = '';
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && out.includes('Press Ctrl-C to stop.')) {
        resolve({
          url: m[1],
          out: () => out,
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`emulator exited early: ${out}`)));
  });
}

async function cliCall(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const token = (
    await parse(
      await fetch(`${url}/api/v2/access/tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-SVC-UAKS': 'S' }, body: JSON.stringify({ keyId: 'K' }) }),
    )
  ).body.token;
  return parse(
    await fetch(`${url}/api/v2/${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
}

describe('postureops emulator --fail-channel', () => {
  it('fails the named channel (repeatable), says so at start, and heals when started without it', async () => {
    const statePath = join(dir, 'emu.json');
    const base = ['--key-id', 'K', '--secret', 'S', '--state', statePath];
    let emu = await startCli([...base, '--fail-channel', 'pager', '--fail-channel', 'other']);
    try {
      expect(emu.out()).toContain('failing alert channels: pager, other');
      const id = (await cliCall(emu.url, 'POST', 'AlertChannels', slack('pager'))).body.data.intgGuid;
      expect((await cliCall(emu.url, 'GET', `AlertChannels/${id}`)).body.data.state.ok).toBe(false);
      expect((await cliCall(emu.url, 'POST', `AlertChannels/${id}/test`)).status).toBe(400);
      // Repeatable: the second name fails too; a third channel stays healthy.
      const other = (await cliCall(emu.url, 'POST', 'AlertChannels', slack('other'))).body.data.intgGuid;
      expect((await cliCall(emu.url, 'POST', `AlertChannels/${other}/test`)).status).toBe(400);
      const fine = (await cliCall(emu.url, 'POST', 'AlertChannels', slack('fine'))).body.data.intgGuid;
      expect((await cliCall(emu.url, 'POST', `AlertChannels/${fine}/test`)).status).toBe(204);
    } finally {
      await emu.stop();
    }
    // The state file says which channels failed, and since when.
    expect(JSON.parse(readFileSync(statePath, 'utf8')).failingChannels.map((f: { name: string }) => f.name)).toEqual(['pager', 'other']);
    emu = await startCli(base);
    try {
      const channels = (await cliCall(emu.url, 'GET', 'AlertChannels')).body.data;
      const channel = channels.find((c: { name: string }) => c.name === 'pager');
      expect(channel.state.ok).toBe(true);
      expect((await cliCall(emu.url, 'POST', `AlertChannels/${channel.intgGuid}/test`)).status).toBe(204);
      // The last success of the channel tested before the restart is remembered.
      expect(channels.find((c: { name: string }) => c.name === 'fine').state.lastSuccessfulTime).toBeGreaterThan(0);
    } finally {
      await emu.stop();
    }
  });
});
