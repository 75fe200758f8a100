// `npm run bench`: the two speed ratios (ratios.ts), start-up, planning and applying, measured
// against the emulator on loopback, then the scaling curve (curve.ts) and the scale simulation (scale.ts). Speed is measured here, never asserted in tests. Numbers go to stdout
// as tables, progress to stderr.
//   npm run bench               everything below
//   npm run bench -- --ratios   the ratios only: validate / yaml's parse and plan / a naive pipeline at 10,000 resources
//   npm run bench -- --curve    the curve only
//   npm run bench -- --scale    the scale simulation only (scale.ts)
//   npm run bench -- --response-size   peak RSS of plan against lists past and just under each limit, one or 12 at once (response-size.ts)
//   npm run bench -- --routing  the routing map and requirements of 1,000 rules only (routing.ts)
//   npm run bench -- --signals  Ctrl-C at 20 moments of plan --out: exit code and plan file (signals.ts)
//   npm run bench -- --apply    apply at a rate limit on a virtual clock, and the fault campaigns (apply-lease.ts)
//   npm run bench -- --rehearsal  plan with and without the rehearsal at 10,000 resources (rehearsal.ts)
//   npm run bench -- --ab DIR   plan and validate of the build in checkout DIR against this one, in turns (ab.ts)

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseEnvText } from '../../cmd/env-file.js';
import { createClient } from '../../src/api/client.js';
import { loadConfig } from '../../src/config/load.js';
import { startEmulator } from '../../src/emulator/index.js';
import { apply } from '../../src/ops/apply/apply.js';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { plan } from '../../src/plan/steps/plan.js';
import { withBudget } from '../../src/ops/budget/budget.js';
import { KINDS } from '../../src/kinds/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { curve, curveTable } from './curve.js';
import { ab, abTable } from './ab.js';
import { ratios, ratiosTable } from './ratios.js';
import { responseSize, responseSizeTable } from './response-size.js';
import { routingBench } from './routing.js';
import { scale } from './scale.js';
import { signalTable, signalTries } from './signals.js';
import { applyTable, campaign, rateLimitedApply } from './apply-lease.js';
import { rehearsalBench, rehearsalTable } from './rehearsal.js';

const HOOK_ENV = { HOOK_TOKEN: 'bench-token' };
const rows: [string, string][] = [];
const record = (what: string, value: string) => {
  rows.push([what, value]);
  process.stderr.write(`  ${what}: ${value}\n`);
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median wall time of `node <args>`; `node -e ""` alone is the floor every CLI run pays. */
function timeNode(args: string[], runs: number, env: Record<string, string> = {}): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    try {
      execFileSync(process.execPath, args, { stdio: 'ignore', env: { ...process.env, ...env } });
    } catch {
      // exit codes other than 0 are fine here: only the time counts
    }
    times.push(performance.now() - t);
  }
  return median(times);
}

function repository(perAccount: number): Record<string, string> {
  const channels: string[] = [];
  const rules: string[] = [];
  const clouds: string[] = [];
  const registries: string[] = [];
  for (let i = 0; i < perAccount; i++) {
    const n = String(i).padStart(4, '0');
    channels.push(`kind: AlertChannel\nname: hook-${n}\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${n}/\${env:HOOK_TOKEN}\n`);
    rules.push(
      `kind: AlertRule\nname: rule-${n}\naccount: "*"\nspec:\n  channels: [hook-${n}]\n  severity: [critical, high]\n  eventCategory: [Cloud, Compliance]\n`,
    );
    if (i % 5 === 0) {
      clouds.push(
        `kind: CloudAccount\nname: aws-${n}\naccount: "*"\nspec:\n  type: AwsCfg\n  data:\n    awsAccountId: "${String(100000000000 + i)}"\n    crossAccountCredentials:\n      roleArn: arn:aws:iam::${String(100000000000 + i)}:role/posture\n      externalId: ext-${n}\n`,
      );
      registries.push(
        `kind: ContainerRegistry\nname: ecr-${n}\naccount: "*"\nspec:\n  data:\n    registryType: AWS_ECR\n    awsAuthType: AWS_IAM\n    registryDomain: ${String(100000000000 + i)}.dkr.ecr.us-east-1.amazonaws.com\n    crossAccountCredentials:\n      roleArn: arn:aws:iam::${String(100000000000 + i)}:role/ecr\n      externalId: ecr-${n}\n`,
      );
    }
  }
  return {
    'postureops.yaml': 'accounts:\n  - name: prod\n  - name: staging\ndefaults:\n  account: prod\n',
    'channels.yaml': channels.join('---\n'),
    'rules.yaml': rules.join('---\n'),
    'clouds.yaml': clouds.join('---\n'),
    'registries.yaml': registries.join('---\n'),
  };
}

async function basics(): Promise<void> {
  const examples = join(packageRoot(), 'examples');
  process.stderr.write('start-up\n');
  const bin = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
  record('node -e "" (the floor, median of 10)', `${timeNode(['-e', ''], 10).toFixed(0)} ms`);
  record('postureops --version (median of 10)', `${timeNode([bin, '--version'], 10).toFixed(0)} ms`);
  const exampleEnv = parseEnvText(readFileSync(join(examples, '.env.example'), 'utf8'));
  record('postureops validate examples (median of 10)', `${timeNode([bin, 'validate', examples], 10, exampleEnv).toFixed(0)} ms`);

  const perAccount = 200;
  const dir = await mkdtemp(join(tmpdir(), 'postureops-bench-'));
  const emu = await startEmulator({ accounts: ['prod', 'staging'], rateLimit: 1_000_000 });
  try {
    for (const [file, text] of Object.entries(repository(perAccount))) await writeFile(join(dir, file), text);
    process.stderr.write(`plan and apply: ${perAccount} channels, ${perAccount} rules and ${(perAccount / 5) * 2} integrations per account, 2 accounts\n`);
    const t0 = performance.now();
    const loaded = await loadConfig(dir, { env: HOOK_ENV });
    record(`load + validate ${loaded.state?.resources.length ?? 0} resources`, `${(performance.now() - t0).toFixed(0)} ms`);

    const client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret, concurrency: 8 });
    try {
      let t = performance.now();
      const live = await fetchLive(client, loaded.state!.root.accounts, KINDS);
      record('fetch live state (empty accounts)', `${(performance.now() - t).toFixed(0)} ms, ${live.calls.total} API calls`);
      t = performance.now();
      const first = withBudget(plan(loaded.state!, live, { apiCalls: live.calls }), KINDS, client.budget());
      record('plan (pure) of the first run', `${(performance.now() - t).toFixed(1)} ms, ${first.plan!.changes.length} changes`);

      t = performance.now();
      const report = await apply(first.plan!, client, { env: HOOK_ENV, concurrency: 8 });
      const ms = performance.now() - t;
      record(
        'apply',
        `${(ms / 1000).toFixed(2)} s, ${report.summary.done} done, ${report.summary.failed} failed, ${report.apiCalls.total} API calls, ${((report.summary.done / ms) * 1000).toFixed(0)} changes/s`,
      );

      t = performance.now();
      const live2 = await fetchLive(client, loaded.state!.root.accounts, KINDS);
      const fetchMs = performance.now() - t;
      t = performance.now();
      const second = withBudget(plan(loaded.state!, live2, { apiCalls: live2.calls }), KINDS, client.budget());
      record(
        `fetch ${live2.resources.length} live resources + plan`,
        `${fetchMs.toFixed(0)} ms + ${(performance.now() - t).toFixed(1)} ms, ${live2.calls.total} API calls, ${second.plan!.changes.length} changes`,
      );
    } finally {
      await client.close();
    }
  } finally {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  }

  process.stdout.write('\n| measurement | result |\n|---|---|\n');
  for (const [what, value] of rows) process.stdout.write(`| ${what} | ${value} |\n`);
}

async function main(): Promise<void> {
  const note = (what: string, value: string) => process.stderr.write(`  ${what}: ${value}\n`);
  if (process.argv.includes('--scale')) {
    await scale(note);
    return;
  }
  const sizes = async (): Promise<void> => {
    process.stderr.write('response size: plan in a child process against a service sending large lists, or many records\n');
    process.stdout.write('\n' + responseSizeTable(await responseSize(undefined, (line) => process.stderr.write(line + '\n'))));
  };
  if (process.argv.includes('--response-size')) return sizes();
  if (process.argv.includes('--signals')) {
    process.stdout.write(signalTable(await signalTries()));
    return;
  }
  if (process.argv.includes('--routing')) {
    routingBench(note);
    return;
  }
  const applying = async (): Promise<void> => {
    process.stderr.write('apply: 300 creates at 60 requests an hour (virtual clock), then 200 applies at 20 % faults and 50 at 50 %\n');
    const scenario = await rateLimitedApply();
    const say = (line: string) => process.stderr.write(line + '\n');
    const campaigns = [await campaign(0.2, 200, 1, say), await campaign(0.5, 50, 3, say)];
    process.stdout.write('\n' + applyTable(scenario, campaigns));
  };
  if (process.argv.includes('--apply')) return applying();
  const speedRatios = async (): Promise<void> => {
    process.stderr.write('ratios: validate against yaml\'s bare parse, plan against a naive pipeline (child processes, interleaved)\n');
    process.stdout.write('\n' + ratiosTable(await ratios({}, (line) => process.stderr.write(line + '\n'))));
  };
  if (process.argv.includes('--ratios')) return speedRatios();
  const abAt = process.argv.indexOf('--ab');
  if (abAt !== -1) {
    const other = process.argv[abAt + 1];
    if (!other) throw new Error('usage: npm run bench -- --ab <checkout of another build>');
    process.stderr.write(`A/B: plan and validate of ${other} and of this checkout, in turns (child processes)\n`);
    process.stdout.write('\n' + abTable(other, await ab(other, 7, (line) => process.stderr.write(line + '\n'))));
    return;
  }
  const rehearsal = async (): Promise<void> => {
    process.stderr.write('rehearsal: plan with it and with --no-rehearse, 10,000 resources (child processes, interleaved)\n');
    process.stdout.write('\n' + rehearsalTable(await rehearsalBench({}, (line) => process.stderr.write(line + '\n'))));
  };
  if (process.argv.includes('--rehearsal')) return rehearsal();
  const curveOnly = process.argv.includes('--curve');
  if (!curveOnly) {
    await speedRatios();
    await basics();
  }
  process.stderr.write('curve: validate and plan (all creates) of generated repositories, each in a child process\n');
  // Other work on the machine slows every measurement: the load is printed with the numbers.
  const before = loadavg()[0];
  const points = await curve({}, (line) => process.stderr.write(line + '\n'));
  process.stdout.write('\n' + curveTable(points));
  process.stdout.write(`\n${availableParallelism()} CPUs; load average (1 min) ${before.toFixed(1)} before the curve, ${loadavg()[0].toFixed(1)} after\n`);
  if (!curveOnly) {
    await scale(note);
    await sizes();
    routingBench(note);
    await applying();
    await rehearsal();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
