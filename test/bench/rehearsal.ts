// What a rehearsal (issue 35) costs at 10,000 resources: `postureops plan .` with it and with
// --no-rehearse, child processes interleaved round after round, on the generated repository
// (generate.ts, 100 accounts), in three states of the service:
//   all creates      empty accounts: the rehearsal applies every resource to its emulator and reads them back
//   100 changes      the repository applied, then one new channel in every account: every account's
//                    lists are seeded (the whole live state), 100 changes rehearsed, all read again
//   no change        the repository applied: nothing to rehearse, no emulator started
// The service's requests are the same with or without the rehearsal (the e2e tests prove it); only
// time and memory differ.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { emulatorEnv, measure, type Usage } from './curve.js';
import { writeRepository } from './generate.js';

export interface RehearsalCase {
  name: string;
  changes: number;
  rehearsed: Usage;
  skipped: Usage;
}

const median = (xs: Usage[]): Usage => [...xs].sort((a, b) => a.wallMs - b.wallMs)[Math.floor(xs.length / 2)];

export async function rehearsalBench(options: { resources?: number; accounts?: number; rounds?: number } = {}, log: (line: string) => void = () => {}): Promise<{ resources: number; accounts: number; cases: RehearsalCase[] }> {
  const resources = options.resources ?? 10_000;
  const accounts = options.accounts ?? 100;
  const rounds = options.rounds ?? 3;
  const bin = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
  const dir = await mkdtemp(join(tmpdir(), 'postureops-rh-bench-'));
  const repo = await writeRepository(dir, { accounts, resources });
  const emu = await startEmulator({ accounts: repo.accounts, rateLimit: 1_000_000 });
  const env = emulatorEnv(emu, dir);
  const cases: RehearsalCase[] = [];
  const compare = async (name: string, changes: number): Promise<void> => {
    const runs = { rehearsed: [] as Usage[], skipped: [] as Usage[] };
    for (let round = 0; round < rounds; round++) {
      for (const [what, extra] of [['rehearsed', []], ['skipped', ['--no-rehearse']]] as const) {
        const u = await measure([bin, 'plan', '.', '--force', ...extra], dir, env);
        if (u.exitCode !== 0) throw new Error(`plan (${what}) exited with ${u.exitCode}: ${u.stderr ?? ''}`);
        runs[what].push(u);
      }
      log(`  ${name}, round ${round + 1}/${rounds}: with ${runs.rehearsed.at(-1)!.wallMs.toFixed(0)} ms, without ${runs.skipped.at(-1)!.wallMs.toFixed(0)} ms`);
    }
    cases.push({ name, changes, rehearsed: median(runs.rehearsed), skipped: median(runs.skipped) });
  };
  try {
    await compare('all creates (empty accounts)', resources);
    log('  applying the repository (--no-rehearse)…');
    const applied = await measure([bin, 'apply', '.', '--auto-approve', '--no-lease', '--no-rehearse', '--concurrency', '8'], dir, env);
    if (applied.exitCode !== 0) throw new Error(`apply exited with ${applied.exitCode}: ${applied.stderr ?? ''}`);
    await compare('no change (nothing to rehearse)', 0);
    await writeFile(join(dir, 'zz-rehearsal-extra.yaml'), 'kind: AlertChannel\nname: rehearsal-extra\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/extra\n');
    await compare(`${accounts} changes, one per account`, accounts);
    return { resources, accounts, cases };
  } finally {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function rehearsalTable(r: Awaited<ReturnType<typeof rehearsalBench>>): string {
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    `Rehearsal cost: \`postureops plan\` of ${r.resources.toLocaleString('en-US')} resources in ${r.accounts} accounts, with the rehearsal and with --no-rehearse (medians, wall and CPU, peak RSS):`,
    '',
    '| service state | changes | plan | plan --no-rehearse | rehearsal adds | CPU with / without | peak RSS with / without |',
    '|---|---|---|---|---|---|---|',
    ...r.cases.map(
      (c) =>
        `| ${c.name} | ${c.changes.toLocaleString('en-US')} | ${ms(c.rehearsed.wallMs)} | ${ms(c.skipped.wallMs)} | ${ms(c.rehearsed.wallMs - c.skipped.wallMs)} | ${ms(c.rehearsed.cpuMs)} / ${ms(c.skipped.cpuMs)} | ${c.rehearsed.maxRssMb.toFixed(0)} / ${c.skipped.maxRssMb.toFixed(0)} MB |`,
    ),
  ].join('\n') + '\n';
}
