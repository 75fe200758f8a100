// The two speed targets of `npm run bench`, measured in one run on one generated repository
// (test/bench/generate.ts: 10,000 resources in 100 accounts by default):
//   validate / parse      `postureops validate .` against yaml's bare parse of the same files
//   plan / pipeline       `postureops plan .` against the naive pipeline: that parse plus one list
//                         call per kind per account, with the same client, against the same emulator
// Every command runs as a child process (naive.ts for the baselines), so each pays Node's start-up.
// The four run interleaved, round after round, so a change in the machine's load touches all of them;
// each ratio is of the medians of wall time (the target), and of CPU time beside it. The emulator's accounts are empty: plan creates everything.
// plan runs with --no-rehearse: the rehearsal's cost is measured on its own (rehearsal.ts).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { emulatorEnv, measure, type Usage } from './curve.js';
import { writeRepository } from './generate.js';

export interface RatioOptions {
  resources?: number;
  accounts?: number;
  /** Rounds of the four measurements (default 7). */
  rounds?: number;
}

export interface Ratios {
  resources: number;
  accounts: number;
  files: number;
  rounds: number;
  /** Median wall time (ms) of each measurement. */
  validateMs: number;
  parseMs: number;
  planMs: number;
  pipelineMs: number;
  /** validate / parse and plan / pipeline of the wall times: the targets are ≤ 0.5 and ≤ 1.0. */
  validateRatio: number;
  planRatio: number;
  /** The same of CPU time (user + system, all threads), less moved by other work on the machine. */
  cpu: { validateMs: number; parseMs: number; planMs: number; pipelineMs: number; validateRatio: number; planRatio: number };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function ratios(options: RatioOptions = {}, log: (line: string) => void = () => {}): Promise<Ratios> {
  const resources = options.resources ?? 10_000;
  const accounts = options.accounts ?? 100;
  const rounds = options.rounds ?? 7;
  const bin = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
  const naive = join(packageRoot(), 'dist', 'test', 'bench', 'naive.js');
  const dir = await mkdtemp(join(tmpdir(), 'postureops-ratios-'));
  const repo = await writeRepository(dir, { accounts, resources });
  const emu = await startEmulator({ accounts: repo.accounts, rateLimit: 1_000_000 });
  try {
    const env = emulatorEnv(emu, dir);
    const runs: Record<'validate' | 'parse' | 'plan' | 'pipeline', string[]> = {
      validate: [bin, 'validate', '.'],
      parse: [naive, 'parse', dir],
      // The speed targets are of the engine: the rehearsal (issue 35) has its own figure (rehearsal.ts).
      plan: [bin, 'plan', '.', '--no-rehearse'],
      pipeline: [naive, 'pipeline', dir],
    };
    const times: Record<keyof typeof runs, number[]> = { validate: [], parse: [], plan: [], pipeline: [] };
    const cpus: Record<keyof typeof runs, number[]> = { validate: [], parse: [], plan: [], pipeline: [] };
    for (let round = 0; round < rounds; round++) {
      for (const [what, args] of Object.entries(runs) as [keyof typeof runs, string[]][]) {
        const u: Usage = await measure(args, dir, env);
        if (u.exitCode !== 0) throw new Error(`${what} exited with ${u.exitCode}: ${u.stderr ?? ''}`);
        times[what].push(u.wallMs);
        cpus[what].push(u.cpuMs);
      }
      log(`  round ${round + 1}/${rounds}: ${Object.entries(times).map(([w, t]) => `${w} ${t[t.length - 1].toFixed(0)} ms`).join(', ')}`);
    }
    const [validateMs, parseMs, planMs, pipelineMs] = [times.validate, times.parse, times.plan, times.pipeline].map(median);
    const [cv, cp, cl, cn] = [cpus.validate, cpus.parse, cpus.plan, cpus.pipeline].map(median);
    return {
      resources,
      accounts,
      files: repo.files,
      rounds,
      validateMs,
      parseMs,
      planMs,
      pipelineMs,
      validateRatio: validateMs / parseMs,
      planRatio: planMs / pipelineMs,
      cpu: { validateMs: cv, parseMs: cp, planMs: cl, pipelineMs: cn, validateRatio: cv / cp, planRatio: cl / cn },
    };
  } finally {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Both ratios as a Markdown table, with the times they are made of. */
export function ratiosTable(r: Ratios): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    `Speed targets at ${n(r.resources)} resources (${r.accounts} accounts, ${n(r.files)} files), medians of ${r.rounds} interleaved rounds:`,
    '',
    '| ratio | wall | target | wall times | CPU | CPU times |',
    '|---|---|---|---|---|---|',
    `| validate / yaml's bare parse | ${r.validateRatio.toFixed(2)}× | ≤ 0.50× | ${ms(r.validateMs)} / ${ms(r.parseMs)} | ${r.cpu.validateRatio.toFixed(2)}× | ${ms(r.cpu.validateMs)} / ${ms(r.cpu.parseMs)} |`,
    `| plan / naive pipeline | ${r.planRatio.toFixed(2)}× | ≤ 1.00× | ${ms(r.planMs)} / ${ms(r.pipelineMs)} | ${r.cpu.planRatio.toFixed(2)}× | ${ms(r.cpu.planMs)} / ${ms(r.cpu.pipelineMs)} |`,
  ].join('\n') + '\n';
}
