// A/B of two builds: `npm run bench -- --ab <checkout>` runs `plan . --no-rehearse` and `validate .` of
// <checkout>/dist/cmd/postureops.js (built: `npm run build` there) and of this one in turns, round after
// round, on one generated repository (10,000 resources in 100 accounts, every one a create) against
// one emulator, and prints the medians of CPU and wall time. Interleaving is what makes a change of
// the machine's load touch both sides; a figure measured earlier compares with nothing.

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { emulatorEnv, measure } from './curve.js';
import { writeRepository } from './generate.js';

export interface AbRow {
  command: string;
  /** Medians of the other checkout (a) and of this one (b), in ms. */
  cpu: [number, number];
  wall: [number, number];
}

const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

export async function ab(other: string, rounds = 7, log: (line: string) => void = () => {}): Promise<AbRow[]> {
  const bins = [join(resolve(other), 'dist', 'cmd', 'postureops.js'), join(packageRoot(), 'dist', 'cmd', 'postureops.js')];
  if (!existsSync(bins[0])) throw new Error(`no built CLI at ${bins[0]}: run npm run build in ${other}`);
  const dir = await mkdtemp(join(tmpdir(), 'postureops-ab-'));
  const repo = await writeRepository(dir, { accounts: 100, resources: 10_000 });
  const emu = await startEmulator({ accounts: repo.accounts, rateLimit: 1_000_000 });
  try {
    const env = emulatorEnv(emu, dir);
    const commands = [['plan', '.', '--no-rehearse'], ['validate', '.']];
    const cpu = commands.map(() => [[], []] as number[][]);
    const wall = commands.map(() => [[], []] as number[][]);
    for (let round = 0; round < rounds; round++) {
      for (const [c, args] of commands.entries()) {
        for (const side of [0, 1]) {
          const u = await measure([bins[side], ...args], dir, env);
          if (u.exitCode !== 0) throw new Error(`${bins[side]} ${args.join(' ')} exited with ${u.exitCode}: ${u.stderr ?? ''}`);
          cpu[c][side].push(u.cpuMs);
          wall[c][side].push(u.wallMs);
        }
      }
      log(`  round ${round + 1}/${rounds}: ${commands.map((a, c) => `${a[0]} ${cpu[c][0].at(-1)?.toFixed(0)} / ${cpu[c][1].at(-1)?.toFixed(0)} ms CPU`).join(', ')}`);
    }
    return commands.map((args, c) => ({
      command: args.join(' '),
      cpu: [median(cpu[c][0]), median(cpu[c][1])],
      wall: [median(wall[c][0]), median(wall[c][1])],
    }));
  } finally {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function abTable(other: string, rows: AbRow[]): string {
  const pct = (a: number, b: number): string => `${b <= a ? '−' : '+'}${(Math.abs(b - a) / a * 100).toFixed(1)} %`;
  return [
    `A = ${other}, B = this checkout; medians of interleaved rounds`,
    '',
    '| command | CPU A | CPU B | change | wall A | wall B |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| \`${r.command}\` | ${r.cpu[0].toFixed(0)} ms | ${r.cpu[1].toFixed(0)} ms | ${pct(r.cpu[0], r.cpu[1])} | ${r.wall[0].toFixed(0)} ms | ${r.wall[1].toFixed(0)} ms |`),
    '',
  ].join('\n');
}
