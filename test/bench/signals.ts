// `npm run bench -- --signals`: Ctrl-C during `plan --out`, as a person presses it. The built bin plans
// a repository against the emulator on loopback; one uninterrupted run gives the plan's duration,
// then 20 runs each get SIGINT at a moment spread evenly over it. A signal sent before the plan said
// "Plan saved" must end the run with 130 (or, before Node installed its handler, with the signal
// itself, which a shell reports as 130) and leave no plan file; one sent after it finds the plan
// complete. Timing-dependent by nature, so a measurement here, not a test (the tests drive each
// moment deterministically: test/e2e/signal.test.ts, test/cmd/plan-interrupt.test.ts).

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';

export interface SignalTry {
  delayMs: number;
  /** The signal reached the process before it printed "Plan saved". */
  beforeSaved: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  planFile: boolean;
}

export async function signalTries(tries = 20): Promise<{ planMs: number; tries: SignalTry[] }> {
  const emu = await startEmulator({ accounts: ['prod', 'staging'] });
  const dir = mkdtempSync(join(tmpdir(), 'postureops-bench-signals-'));
  try {
    writeFileSync(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n  - name: staging\ndefaults: {account: prod}\n');
    const docs = Array.from({ length: 40 }, (_, i) => `kind: AlertChannel\nname: hook-${i}\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${i}\n`);
    writeFileSync(join(dir, 'channels.yaml'), docs.join('---\n'));
    const bin = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
    const out = join(dir, 'plan.json');
    const once = (delayMs?: number) =>
      new Promise<SignalTry & { ms: number }>((resolve) => {
        rmSync(out, { force: true });
        const started = Date.now();
        const child = spawn(process.execPath, [bin, 'plan', dir, '--out', out], {
          env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SVC_BASE_URL: emu.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        let beforeSaved = false;
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        if (delayMs !== undefined) setTimeout(() => (beforeSaved = !stderr.includes('Plan saved') && child.kill('SIGINT')), delayMs);
        child.on('exit', (exitCode, signal) => resolve({ delayMs: delayMs ?? -1, beforeSaved, exitCode, signal, planFile: existsSync(out), ms: Date.now() - started }));
      });
    const planMs = (await once()).ms;
    const results: SignalTry[] = [];
    for (let i = 0; i < tries; i++) {
      const { ms: _ms, ...r } = await once(Math.floor((i / tries) * planMs));
      results.push(r);
    }
    return { planMs, tries: results };
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function signalTable({ planMs, tries }: { planMs: number; tries: SignalTry[] }): string {
  const before = tries.filter((t) => t.beforeSaved);
  const clean = before.filter((t) => !t.planFile && (t.exitCode === 130 || t.signal === 'SIGINT'));
  const rows = tries.map((t) => `| ${t.delayMs} ms | ${t.beforeSaved ? 'before' : 'after'} | ${t.exitCode ?? `killed by ${t.signal}`} | ${t.planFile ? 'yes' : 'no'} |`);
  return [
    `Ctrl-C during plan --out (an uninterrupted plan took ${planMs} ms): ${clean.length} of ${before.length} signals sent before "Plan saved" ended with 130 and no plan file`,
    '',
    '| SIGINT after | "Plan saved" printed | exit | plan file |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
