// plan --out and a signal at the last moments of the command, in process and deterministic: while
// the plan is written to stdout, after the file was saved. Exit 130/143 and no plan file; once the
// plan says it is saved, it is complete.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../cmd/main.js';
import type { Io } from '../../cmd/io.js';
import { startEmulator } from '../../src/emulator/index.js';
import { manualSignals, serviceEnv } from '../e2e/harness.js';

let emu: Awaited<ReturnType<typeof startEmulator>>;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ accounts: ['prod'] });
  dir = await mkdtemp(join(tmpdir(), 'postureops-plan-late-'));
  await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
  await writeFile(join(dir, 'c.yaml'), 'kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/1\n');
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

function io(signals: ReturnType<typeof manualSignals>, onStdout?: () => void): Io & { err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stdout.on('data', () => onStdout?.());
  stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  return { stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: '1', ...serviceEnv(emu) }, cwd: dir, signals, err: () => err };
}

describe('plan --out: a signal in the last moments', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while the plan is written to stdout, after the file was saved: exit %s, the file removed', async (signal, exit) => {
    const out = join(dir, `stdout-${signal}.json`);
    const signals = manualSignals();
    let sent = false;
    const target = io(signals, () => {
      if (sent) return;
      sent = true;
      expect(existsSync(out)).toBe(true); // saved before stdout: the signal really comes after the save
      signals.send(signal);
    });
    const code = await run(['node', 'postureops', 'plan', dir, '--out', out], target);
    expect(sent).toBe(true);
    expect(code, target.err()).toBe(exit);
    expect(existsSync(out)).toBe(false);
    expect(target.err()).toContain(`interrupted by ${signal}: the plan was not saved to ${out}`);
    expect(target.err()).not.toContain('Plan saved');
  });

  it('without a signal the plan is saved and the exit code is left alone', async () => {
    const out = join(dir, 'quiet.json');
    const signals = manualSignals();
    const target = io(signals);
    expect(await run(['node', 'postureops', 'plan', dir, '--out', out], target)).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(target.err()).toContain('Plan saved to');
    expect(signals.listening()).toBe(false);
  });
});
