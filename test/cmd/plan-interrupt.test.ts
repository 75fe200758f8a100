// plan --out and a signal at the last moments of the command, in process and deterministic: while
// the plan is written to stdout, after the file was saved. Exit 130/143 and no plan file; once the
// plan says it is saved, it is complete.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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

  it('a signal before this run wrote its file leaves an older plan at that path as it was', async () => {
    const out = join(dir, 'older.json');
    await writeFile(out, '{"an": "older plan"}\n');
    const signals = manualSignals();
    const target = io(signals);
    let sent = false;
    target.stderr.on('data', () => {
      if (sent) return;
      sent = true;
      signals.send('SIGINT');
    });
    const code = await run(['node', 'postureops', 'plan', dir, '--out', out], target);
    expect(sent).toBe(true);
    expect(code).toBe(130);
    expect(await readFile(out, 'utf8')).toBe('{"an": "older plan"}\n');
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
