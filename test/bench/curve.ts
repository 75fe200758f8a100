// The scaling curve of `npm run bench`: `validate` and `plan` of generated repositories of 1,000,
// 10,000 and 50,000 resources in 100 accounts (test/bench/generate.ts), each run as the CLI in a
// child process: wall time (spawn to exit, Node's start-up included), CPU (user + system, all
// threads) and peak RSS, as the child reports them at exit (rusage.ts). `plan` reads the emulator on
// loopback, started in this process with rate limits out of the way; its accounts are empty, so the
// plan creates every resource (the largest plan, every change rendered).

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { writeRepository } from './generate.js';

export interface CurveOptions {
  /** Resources per repository (default 1,000, 10,000 and 50,000). */
  sizes?: readonly number[];
  /** Accounts of every repository (default 100). */
  accounts?: number;
  /** Runs per measurement, the median (by wall time) reported; default 3 up to 10,000 resources, then 1. */
  runs?: (resources: number) => number;
}

export interface Usage {
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
  exitCode: number | null;
  /** The end of what the child wrote to stderr (its error, when it failed). */
  stderr?: string;
}

export interface CurvePoint {
  resources: number;
  accounts: number;
  documents: number;
  files: number;
  runs: number;
  validate: Usage;
  plan: Usage;
}

/** The variables a child run needs to reach `emu`; what it learns of the rate-limit buckets stays in `dir`. */
export function emulatorEnv(emu: Pick<RunningEmulator, 'url' | 'keyId' | 'secret'>, dir: string): Record<string, string> {
  return { SVC_BASE_URL: emu.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret, POSTUREOPS_CACHE_DIR: join(dir, '.cache') };
}

/** Runs `node <args>` in `cwd` with `env` added; what it used. Its output is discarded, but for the end of stderr. */
export async function measure(args: string[], cwd: string, env: Record<string, string>): Promise<Usage> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-rusage-'));
  const file = join(dir, 'usage.json');
  const preload = pathToFileURL(join(packageRoot(), 'dist', 'test', 'bench', 'rusage.js')).href;
  try {
    const t = performance.now();
    let stderr = '';
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', preload, ...args], {
        cwd,
        env: { ...process.env, ...env, POSTUREOPS_BENCH_RUSAGE: file },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => {
        stderr = (stderr + text).slice(-4096);
      });
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    });
    const wallMs = performance.now() - t;
    const u = JSON.parse(await readFile(file, 'utf8')) as { userMs: number; systemMs: number; maxRssKb: number };
    return { wallMs, cpuMs: u.userMs + u.systemMs, maxRssMb: u.maxRssKb / 1024, exitCode, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function medianByWall(runs: Usage[]): Usage {
  return [...runs].sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs.length / 2)];
}

/** Measures the curve; progress goes to `log` (stderr in the bench). */
export async function curve(options: CurveOptions = {}, log: (line: string) => void = () => {}): Promise<CurvePoint[]> {
  const sizes = options.sizes ?? [1_000, 10_000, 50_000];
  const accounts = options.accounts ?? 100;
  const runsFor = options.runs ?? ((n: number) => (n <= 10_000 ? 3 : 1));
  const bin = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
  const points: CurvePoint[] = [];
  for (const resources of sizes) {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-curve-'));
    const repo = await writeRepository(dir, { accounts, resources });
    const emu = await startEmulator({ accounts: repo.accounts, rateLimit: 1_000_000 });
    try {
      const env = emulatorEnv(emu, dir);
      const runs = runsFor(resources);
      const measureRuns = async (args: string[]): Promise<Usage> => {
        const all: Usage[] = [];
        for (let i = 0; i < runs; i++) all.push(await measure([bin, ...args], dir, env));
        const m = medianByWall(all);
        if (m.exitCode !== 0) throw new Error(`postureops ${args.join(' ')} exited with ${m.exitCode} on ${resources} resources`);
        return m;
      };
      const validate = await measureRuns(['validate', '.']);
      log(`  validate ${resources} resources: ${usageText(validate)}`);
      // The engine's curve: the rehearsal's cost is measured on its own (rehearsal.ts).
      const plan = await measureRuns(['plan', '.', '--no-rehearse']);
      log(`  plan ${resources} resources: ${usageText(plan)}`);
      points.push({ resources, accounts, documents: repo.documents, files: repo.files, runs, validate, plan });
    } finally {
      await emu.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
  return points;
}

export function usageText(u: Usage): string {
  return `${(u.wallMs / 1000).toFixed(2)} s wall, ${(u.cpuMs / 1000).toFixed(2)} s CPU, ${u.maxRssMb.toFixed(0)} MB`;
}

/** The curve as a Markdown table. */
export function curveTable(points: readonly CurvePoint[]): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    '| resources (accounts, documents, files) | validate: wall, CPU, peak RSS | plan: wall, CPU, peak RSS |',
    '|---|---|---|',
    ...points.map(
      (p) =>
        `| ${n(p.resources)} (${p.accounts}, ${n(p.documents)}, ${n(p.files)})${p.runs > 1 ? `, median of ${p.runs}` : ''} | ${usageText(p.validate)} | ${usageText(p.plan)} |`,
    ),
  ];
  return lines.join('\n') + '\n';
}
