// The apply lease through the real CLI: a lease another apply holds stops apply before its first
// write with exit 4 and a message that says what to do; a lease record never shows in a plan or an
// export. The interleavings of two applies are in test/engine/apply-lease.test.ts.

import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { Leases } from '../../src/engine/lease.js';
import { KINDS } from '../../src/kinds/index.js';
import { LEASE_NAME } from '../../src/kinds/lease-record.js';
import { cli, EXAMPLES, exampleEnv, rawApi, serviceEnv } from './harness.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setUp() {
  const emu = await startEmulator({ accounts: ['prod', 'staging'] });
  const client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret });
  cleanup.push(() => emu.close(), () => client.close());
  const env = { ...exampleEnv(), ...serviceEnv(emu) };
  /** A lease of prod as a crashed apply leaves it (unexpired: the CLI reads the real clock). */
  const crashed = () => Leases.acquire(client, KINDS, [{ name: 'prod', orgAccess: false }], { holder: 'crashed run' });
  return { emu, env, crashed };
}

it('stops with exit 4 before its first write while another apply holds the lease, then applies once it is released', async () => {
  const { emu, env, crashed } = await setUp();
  const held = await crashed();
  const stopped = await cli(['apply', EXAMPLES, '--auto-approve'], { env });
  expect(stopped.code).toBe(4);
  expect(stopped.stderr).toMatch(/another apply holds the lease of account prod \(crashed run; it expires in \d+s unless renewed\): nothing was changed/);
  expect(stopped.stderr).toContain('--lease-wait');
  const channels = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
  expect(channels.body.data.map((r: { name: string }) => r.name)).toEqual([LEASE_NAME]);

  await held!.release();
  const applied = await cli(['apply', EXAMPLES, '--auto-approve'], { env });
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain('Apply lease: held on prod, staging');
  const after = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
  expect(after.body.data.map((r: { name: string }) => r.name)).not.toContain(LEASE_NAME);
});

it('a lease record is never planned, listed as unmanaged or exported', async () => {
  const { env, crashed } = await setUp();
  expect((await cli(['apply', EXAMPLES, '--auto-approve'], { env })).code).toBe(0);
  await crashed();
  const planned = await cli(['plan', EXAMPLES, '--format', 'json', '--detailed-exitcode'], { env });
  expect(planned.code).toBe(0);
  expect(JSON.parse(planned.stdout).summary.unmanaged).toBe(0);
  expect(planned.stdout + planned.stderr).not.toContain(LEASE_NAME);

  const out = await mkdtemp(join(tmpdir(), 'postureops-lease-export-'));
  cleanup.push(() => rm(out, { recursive: true, force: true }));
  const exported = await cli(['export', '--out', join(out, 'repo'), '--account', 'prod', '--account', 'staging'], { env });
  expect(exported.code).toBe(0);
  const files = await readdir(join(out, 'repo'), { recursive: true });
  const texts = await Promise.all(files.filter((f) => f.endsWith('.yaml') || f.endsWith('.md')).map((f) => readFile(join(out, 'repo', f), 'utf8')));
  expect(texts.join('\n')).toContain('kind: AlertChannel');
  expect(texts.join('\n')).not.toContain(LEASE_NAME);
});
