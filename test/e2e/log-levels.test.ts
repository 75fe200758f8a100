// Quiet by default, more on request (issue 24): a plan prints its changes and a one-line summary;
// the rate-limit bookkeeping only with --verbose (info) or when apply will wait; --log-level,
// POSTUREOPS_LOG and POSTUREOPS_LOG_FILE as TF_LOG and TF_LOG_PATH; a stack only at debug.

import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli as runCli, serviceEnv, virtualClient, webhookRepo } from './harness.js';

/** The CLI in-process; its client's retries sleep on a virtual clock (the unreachable service). */
const { clientOptions, useClock, reset } = virtualClient();
const cli = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(args, { ...opts, clientOptions });

const STACK = /\n\s+at .+:\d+:\d+/;

describe('quiet by default, log levels and the log file', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let tight: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let logs: string;
  const cleanup: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'], rateLimit: 1_000_000 });
    // 5 writes an hour: the 7 creates of the plan cannot all go at once.
    tight = await startEmulator({ accounts: ['prod'], rateLimit: 5 });
    dir = await webhookRepo(['prod'], 7, cleanup);
    logs = await mkdtemp(join(tmpdir(), 'postureops-logs-'));
  });
  afterEach(reset);
  afterAll(async () => {
    await emu.close();
    await tight.close();
    await rm(logs, { recursive: true, force: true });
    while (cleanup.length > 0) await cleanup.pop()!();
  });

  it('a plan prints its changes and the summary; the bookkeeping and the request lines only with --verbose', async () => {
    const quiet = await cli(['plan', dir], { env: serviceEnv(emu) });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('Plan: 7 to create, 0 to update, 0 to replace, 0 to delete.');
    expect(quiet.stdout).not.toMatch(/API calls made|Requests apply needs|not used yet|Estimated wait/);
    expect(quiet.stderr).not.toMatch(/Pre-flight|GET \/api\/v2/);
    // Off a terminal: one line per phase, nothing more.
    expect(quiet.stderr).toBe(`Loading the files in ${dir}\nReading live state of prod: 1 account\n`);

    const verbose = await cli(['plan', dir, '--verbose'], { env: serviceEnv(emu) });
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toMatch(/API calls made: \d+/);
    expect(verbose.stdout).toContain('Requests apply needs, per rate-limit bucket:');
    expect(verbose.stderr).toMatch(/^GET \/api\/v2\/AlertChannels \[prod\] → 200 \d+ ms/m);
    expect(verbose.stderr).toContain('Pre-flight (read)');
    // --log-level info is the same as --verbose; POSTUREOPS_LOG too.
    expect((await cli(['plan', dir, '--log-level', 'info'], { env: serviceEnv(emu) })).stderr).toMatch(/^GET \/api\/v2\/AlertChannels/m);
    expect((await cli(['plan', dir], { env: { ...serviceEnv(emu), POSTUREOPS_LOG: 'info' } })).stdout).toContain('API calls made');
  });

  it('a plan whose apply will wait for a bucket says so without --verbose', async () => {
    const r = await cli(['plan', dir], { env: serviceEnv(tight) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Requests apply needs, per rate-limit bucket:');
    expect(r.stdout).toMatch(/Estimated wait for rate limits: about/);
  });

  it('--log-level error leaves stderr to errors; an unknown POSTUREOPS_LOG is an error', async () => {
    const r = await cli(['plan', dir, '--log-level', 'error'], { env: serviceEnv(emu) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const bad = await cli(['plan', dir], { env: { ...serviceEnv(emu), POSTUREOPS_LOG: 'loud' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('POSTUREOPS_LOG="loud": expected one of error, warn, info, debug');
    const flag = await cli(['plan', dir, '--log-level', 'loud'], { env: serviceEnv(emu) });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toMatch(/--log-level.*Allowed choices are error, warn, info, debug/);
  });

  it('POSTUREOPS_LOG_FILE: the request lines go to that file (appended, mode 0600), never a secret', async () => {
    const file = join(logs, 'run.log');
    await writeFile(file, 'earlier line\n', { mode: 0o644 });
    await chmod(file, 0o644);
    const env = { ...serviceEnv(emu), POSTUREOPS_LOG: 'info', POSTUREOPS_LOG_FILE: file };
    const r = await cli(['plan', dir], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/GET \/api\/v2/);
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('earlier line\n')).toBe(true);
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[INFO\] GET \/api\/v2\/AlertChannels \[prod\] → 200/m);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    for (const secret of [emu.secret, emu.keyId]) expect(text).not.toContain(secret);
    // A new file is created 0600.
    const fresh = join(logs, 'fresh.log');
    await cli(['plan', dir, '--verbose'], { env: { ...serviceEnv(emu), POSTUREOPS_LOG_FILE: fresh } });
    expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    expect(await readFile(fresh, 'utf8')).toMatch(/\[INFO\] POST \/api\/v2\/access\/tokens|\[INFO\] GET /);
  });

  it('an unexpected error is one line; the stack only at debug, to the log file when one is set', async () => {
    useClock();
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((done) => server.close(() => done()));
    const env = { ...serviceEnv(emu), SVC_BASE_URL: `http://127.0.0.1:${port}` };
    const plain = await cli(['plan', dir], { env });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/postureops: cannot reach/);
    expect(plain.stderr).not.toMatch(STACK);
    const debug = await cli(['plan', dir, '--log-level', 'debug'], { env });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(STACK);
    // The old POSTUREOPS_DEBUG is gone: POSTUREOPS_LOG=debug replaces it.
    expect((await cli(['plan', dir], { env: { ...env, POSTUREOPS_DEBUG: '1' } })).stderr).not.toMatch(STACK);
    const file = join(logs, 'debug.log');
    const toFile = await cli(['plan', dir], { env: { ...env, POSTUREOPS_LOG: 'debug', POSTUREOPS_LOG_FILE: file } });
    expect(toFile.stderr).not.toMatch(STACK);
    expect(await readFile(file, 'utf8')).toMatch(/\[DEBUG\] .*\n\s+at /);
  });
});
