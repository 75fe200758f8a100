// Issue 24, progress: an apply of many changes through the real CLI against the emulator. On a
// terminal stderr holds one live count redrawn in place (no per-change line); off a terminal, one
// line when the phase starts and at most one progress line per 30 s of the client's virtual clock
// (each request moves it a second). The report on stdout still lists every result. 240 changes
// show all of it (several 30 s lines, a live count, no line per change) in a tenth of the time of
// the 2,000 the issue names: the behaviour does not change with the count, the test's speed does.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../cmd/main.js';
import type { Io } from '../../cmd/io.js';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { virtualTime } from '../api/helpers.js';
import { serviceEnv } from './harness.js';

const CHANGES = 240;
const HALF = CHANGES / 2;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setup() {
  const clock = manualClock(Date.UTC(2026, 2, 1));
  const emu = await startEmulator({ accounts: ['prod'], clock, rateLimit: 1_000_000 });
  cleanup.push(() => emu.close());
  const dir = await mkdtemp(join(tmpdir(), 'postureops-progress-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
  const docs = Array.from({ length: CHANGES }, (_, i) => `kind: AlertChannel\nname: hook-${i}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${i}\n`);
  await writeFile(join(dir, 'channels.yaml'), docs.join('---\n'));
  return { clock, emu, dir };
}

function stream(tty: boolean) {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) s.isTTY = true;
  let text = '';
  s.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return { s, text: () => text };
}

async function applyAll(tty: boolean) {
  const { clock, emu, dir } = await setup();
  const out = stream(false);
  const err = stream(tty);
  const io: Io = {
    stdout: out.s,
    stderr: err.s,
    stdin: new PassThrough(),
    env: { NO_COLOR: '1', ...serviceEnv(emu) },
    cwd: dir,
    // The client's clock is the emulator's; every request takes a virtual second.
    clientOptions: (o) => ({ ...o, now: () => clock.now(), sleep: virtualTime(clock), log: (e) => (o.log?.(e), clock.advance(1000)) }),
  };
  // The apply's own progress: its rehearsal (2,000 writes to an emulator first) is not what is shown here.
  const code = await run(['node', 'postureops', 'apply', dir, '--auto-approve', '--no-lease', '--no-rehearse', '--concurrency', '16'], io);
  return { code, stdout: out.text(), stderr: err.text(), clock };
}

/** Seconds of `1h 2m 3s elapsed`. */
function elapsed(line: string): number {
  const m = /(?:(\d+)h )?(?:(\d+)m )?(\d+)s elapsed/.exec(line);
  if (!m) throw new Error(`no elapsed time in ${line}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3]);
}

describe('a long apply shows its progress', () => {
  it('on a terminal: a live count redrawn in place, no line per change, the report lists every result', async () => {
    const r = await applyAll(true);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/^ {2}done {4}\+ create AlertChannel hook-/gm)).toHaveLength(CHANGES);
    expect(r.stdout).toContain(`Apply: ${CHANGES} done, 0 failed, 0 skipped of ${CHANGES} changes`);
    // Redraws, each one erase-line (readline) and one status: never a new line per change.
    const draws = r.stderr.split('\x1b[2K\x1b[1G').map((d) => d.trim()).filter((d) => d.startsWith('Applying'));
    expect(draws.length).toBeGreaterThanOrEqual(CHANGES);
    expect(draws).toContain(`Applying: ${HALF}/${CHANGES} done, ${draws.find((d) => d.startsWith(`Applying: ${HALF}/`))!.split(', ').slice(1).join(', ')}`);
    expect(draws.at(-1)).toMatch(new RegExp(`^Applying: ${CHANGES}/${CHANGES} done, \\d+m \\d+s elapsed$`));
    expect(draws.find((d) => d.startsWith(`Applying: ${HALF}/`))).toMatch(/elapsed, about \d+m \d+s left$/);
    expect(r.stderr).not.toMatch(/create AlertChannel/);
    // The few log lines (the phases) are all that scrolls: the changes add none.
    expect(r.stderr.split('\n').length).toBeLessThan(10);
  });

  it('off a terminal: one line when the phase starts, then at most one progress line per 30 s of virtual time', async () => {
    const r = await applyAll(false);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('\x1b');
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('Applying'));
    expect(lines[0]).toBe(`Applying: ${CHANGES} changes`);
    const progress = lines.slice(1);
    // Every request a virtual second, 16 in flight: the apply takes well over 30 virtual seconds.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const times = progress.map(elapsed);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(30);
    expect(times[0]).toBeGreaterThanOrEqual(30);
    for (const line of progress) expect(line).toMatch(new RegExp(`^Applying: \\d+/${CHANGES} done, (\\d+m )?\\d+s elapsed, about (\\d+h )?(\\d+m )?\\d+s left$`));
    expect(r.stdout).toContain(`Apply: ${CHANGES} done, 0 failed`);
  });
});
