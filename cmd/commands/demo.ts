// The emulator in-process, some drift seeded through the API, the examples planned, applied and
// planned again: what a new user sees first, with no account.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEnvText } from '../env-file.js';
import { packageRoot } from '../../src/util/package-root.js';
import { EXIT, type Io, write, writeText } from '../io.js';
import { loadDesired, openRun } from '../pipeline.js';
import { applyCommand } from './apply.js';
import { applyOptions, planOptions } from '../options.js';
import { planCommand } from './plan.js';

function banner(io: Io, text: string): void {
  write(io.stdout, `\n━━ ${text} ${'━'.repeat(Math.max(0, 72 - text.length))}\n`);
}

export async function demoCommand(io: Io, opts: { examples?: string }): Promise<number> {
  const examples = opts.examples ?? join(packageRoot(), 'examples');
  const { startEmulator } = await import('../../src/emulator/index.js');
  const emu = await startEmulator({ accounts: ['prod', 'staging'] });
  try {
    // The examples take their secrets from the environment; the demo uses the documented fake values.
    const fake = parseEnvText(await readFile(join(examples, '.env.example'), 'utf8'));
    const env = { ...fake, ...io.env, SVC_BASE_URL: emu.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret };
    const demoIo: Io = { ...io, env, stdin: { ...io.stdin, isTTY: false } as Io['stdin'] };

    banner(io, `Emulator on ${emu.url} (accounts prod, staging)`);
    const desired = await loadDesired(demoIo, examples);
    const seeded = await seedDrift(demoIo, desired);
    writeText(io.stdout, seeded.map((s) => `  seeded: ${s}`).join('\n'));

    // One screen or two: the plan once, one line a change; then what apply did; then the plan again.
    banner(io, 'postureops plan examples');
    await planCommand(demoIo, examples, { ...planOptions({ format: 'text' }), brief: true });
    write(io.stdout, '(one line a change here: postureops plan shows each with its diff)');

    // The demo's emulator is its own (no other apply can reach it): no lease, whose first taking
    // waits its lifetime and margin (about 2.5 min) on a service that never had one.
    banner(io, 'postureops apply examples --auto-approve --no-lease');
    const applied = await applyCommand(demoIo, examples, { ...applyOptions({ format: 'text', autoApprove: true, lease: false }), brief: true });
    if (applied !== EXIT.ok) return applied;

    banner(io, 'postureops plan examples --detailed-exitcode');
    const again = await planCommand(demoIo, examples, planOptions({ format: 'text', detailedExitcode: true }));
    write(io.stdout, again === EXIT.ok ? '\nThe live state matches the examples.' : '\nThe second plan still shows changes.');
    return again === EXIT.ok ? EXIT.ok : EXIT.error;
  } finally {
    await emu.close();
  }
}

/**
 * Live state a real account would have: one declared channel created by hand and since edited
 * (drift), and one channel nobody declared (unmanaged). Built through the kinds, like apply does.
 */
async function seedDrift(io: Io, desired: Awaited<ReturnType<typeof loadDesired>>): Promise<string[]> {
  const { kindOf } = await import('../../src/kinds/index.js');
  const run = await openRun(io, {});
  const { client } = run;
  const seeded: string[] = [];
  try {
    const channels = desired.resources.filter((r) => r.kind === 'AlertChannel' && r.account === 'prod');
    const kind = kindOf('AlertChannel');
    const ctx = { account: 'prod', orgAccess: false, resolve: () => '' };
    const drifted = channels.find((c) => c.spec.enabled === true);
    if (drifted) {
      await client.request(kind.createRequest({ ...drifted, spec: { ...drifted.spec, enabled: false } }, [], ctx));
      seeded.push(`prod AlertChannel ${drifted.name}, disabled by hand (drift)`);
    }
    const template = channels.find((c) => c.spec.type === 'Webhook') ?? channels[0];
    if (template) {
      const name = 'legacy-console-webhook';
      await client.request(kind.createRequest({ ...template, name }, [], ctx));
      seeded.push(`prod AlertChannel ${name}, created in the console (unmanaged)`);
    }
    return seeded;
  } finally {
    await run.close();
  }
}
