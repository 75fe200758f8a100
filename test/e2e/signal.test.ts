// The real signal path once: the built bin applies to an in-test emulator whose bucket is drained,
// gets SIGINT from this test as soon as its request log (--verbose) shows the bucket empty, and
// ends with its report and exit 130 (a wait has no line of its own within 30 s of a phase's start). No timing is asserted: the test only waits for the line and then for the exit.
// These applies count requests per rate-limit bucket exactly, so they run with --no-lease (the
// lease's own requests would shift the arithmetic); test/e2e/apply-lease.test.ts covers the lease.

import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';

const BIN = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

describe('postureops bin and SIGINT', () => {
  it('SIGINT while waiting for a rate-limit bucket: the report of what was done, and exit 130', async () => {
    // Three creates an hour: the fourth waits twenty minutes of real time, which this test never lets pass.
    const emu = await startEmulator({ accounts: ['prod'], rateLimit: 3 });
    cleanup.push(() => emu.close());
    const dir = await mkdtemp(join(tmpdir(), 'postureops-signal-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
    const docs = Array.from({ length: 5 }, (_, i) => `kind: AlertChannel\nname: hook-${i + 1}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${i + 1}\n`);
    await writeFile(join(dir, 'channels.yaml'), docs.join('---\n'));

    const child = spawn(process.execPath, [BIN, 'apply', dir, '--no-lease', '--auto-approve', '--format', 'json', '--max-wait', '7200', '--verbose'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SVC_BASE_URL: emu.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      if (!signalled && /: 0 left\)/.test(stderr)) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));

    expect(signalled, `${stderr}\n${stdout}`).toBe(true);
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('SIGINT received');
    const report = JSON.parse(stdout);
    expect(report.stopped).toMatchObject({ cause: 'interrupted', message: 'interrupted by SIGINT', notStarted: 2 });
    expect(report.results.map((r: { status: string }) => r.status)).toEqual(['done', 'done', 'done', 'skipped', 'skipped']);
  });
});

describe('postureops plan --out and a signal', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while the plan reads: exit %s and no plan file', async (signal, exit) => {
    // One request an hour per bucket: the plan's second read of a collection waits, and the signal comes then.
    const emu = await startEmulator({ accounts: ['prod', 'staging', 'qa'], rateLimit: 1 });
    cleanup.push(() => emu.close());
    const dir = await mkdtemp(join(tmpdir(), 'postureops-plan-signal-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n  - name: staging\n  - name: qa\ndefaults: {account: prod}\n');
    await writeFile(join(dir, 'channels.yaml'), 'kind: AlertChannel\nname: hook\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/1\n');
    const out = join(dir, 'saved.plan.json');
    const child = spawn(process.execPath, [BIN, 'plan', dir, '--out', out, '--max-wait', '7200', '--verbose'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SVC_BASE_URL: emu.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    let signalled = false;
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      if (!signalled && /: 0 left\)/.test(stderr)) {
        signalled = true;
        child.kill(signal);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(signalled, stderr).toBe(true);
    expect(code, stderr).toBe(exit);
    expect((await readdir(dir)).sort()).toEqual(['channels.yaml', 'postureops.yaml']);
    expect(stderr).toContain(`interrupted by ${signal}: the live state was not read completely; nothing was planned or written`);
  });
});
