// The bin itself: start-up, usage errors, exit codes and messages without stack traces.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';
import { cli, EXAMPLES, exampleEnv } from './harness.js';

const exec = promisify(execFile);
const BIN = join(packageRoot(), 'dist', 'cmd', 'postureops.js');

async function bin(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('postureops bin', () => {
  it('validates the examples offline', async () => {
    const res = await bin(['validate', EXAMPLES], exampleEnv());
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Valid: \d+ resources in 2 accounts/);
  });

  it('reports a broken file with file:line, exit 1 and no stack trace', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-bad-'));
    try {
      await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
      // (An unknown type is only a warning since issue 9: the service adds types; a bad value is an error.)
      await writeFile(join(dir, 'bad.yaml'), 'kind: AlertChannel\nname: x\nspec:\n  enabled: maybe\n  type: CloudwatchEb\n  data: {eventBusArn: "arn:aws:events:us-east-1:1:event-bus/b"}\n');
      const res = await bin(['validate', dir]);
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(/bad\.yaml:4:\d+/);
      expect(res.stdout + res.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('--dotenv names a missing file itself (Node 20 would take a --env-file argument for its own and exit 9)', async () => {
    const res = await bin(['validate', EXAMPLES, '--dotenv', join(EXAMPLES, 'no-such.env')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--dotenv');
    expect(res.stderr).toContain('no-such.env: cannot read it');
    const good = await bin(['validate', EXAMPLES, '--dotenv', join(EXAMPLES, '.env.example')]);
    expect(good.code, good.stderr).toBe(0);
  });

  it('plan without credentials names the missing variables and exits 1', async () => {
    const res = await bin(['plan', EXAMPLES], exampleEnv());
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('SVC_API_KEY_ID');
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses plain HTTP to a host that is not loopback', async () => {
    const res = await cli(['plan', EXAMPLES], {
      env: { ...exampleEnv(), SVC_BASE_URL: 'http://posture.example.com', SVC_API_KEY_ID: 'k', SVC_API_SECRET: 's' },
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/HTTPS/);
  });

  it('runs the demo (npm start): drift seeded, examples applied, the second plan clean', async () => {
    const res = await cli(['demo']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('seeded: prod AlertChannel');
    expect(res.stdout).toMatch(/Apply: \d+ done, 0 failed, 0 skipped/);
    expect(res.stdout).toContain('The live state matches the examples.');
    for (const value of Object.values(exampleEnv())) expect(res.stdout + res.stderr).not.toContain(value);
    // A screen or two at 80 columns: the plan once, one line a change (the drift says what it changes), then the apply's summary.
    const lines = res.stdout.split('\n');
    expect(lines.length).toBeLessThan(150);
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(80);
    expect(res.stdout.match(/^Plan: \d+ to create/gm)).toHaveLength(1);
    expect(res.stdout).toMatch(/~ update AlertChannel datadog-events[^\n]*\n(?: {4}[^\n]*\n)? {6}changed: enabled\n/);
    expect(res.stdout).not.toMatch(/^ +[+-] (?:type|enabled|data):/m);
    expect(res.stdout).not.toMatch(/^ +done +\+ create/m);
  });

  it('exits 1 on an unknown option and on an unknown --account', async () => {
    expect((await cli(['plan', '--bogus'])).code).toBe(1);
    const res = await cli(['plan', EXAMPLES, '--account', 'nope'], { env: exampleEnv() });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('nope');
  });
});
