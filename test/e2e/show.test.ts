// `postureops show PLAN` (issue 24): a saved plan, a shard's and a merged one rendered in text, JSON
// and Markdown without a request to the service; an edited file refused as `apply --plan` refuses it;
// a signed plan verified with POSTUREOPS_PLAN_KEY, an unsigned one shown with a note.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, serviceEnv } from './harness.js';

const ACCOUNTS = ['a1', 'a2', 'a3', 'a4'];
const KEY = 'k'.repeat(40);

describe('postureops show', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  const files = { plain: '', shard: '', merged: '', signed: '' };
  /** Requests the emulator served: show must add none. */
  let served = 0;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ACCOUNTS, rateLimit: 1_000_000 });
    dir = await mkdtemp(join(tmpdir(), 'postureops-show-'));
    await writeFile(join(dir, 'postureops.yaml'), `accounts:\n${ACCOUNTS.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: a1\n`);
    await writeFile(join(dir, 'hooks.yaml'), `kind: AlertChannel\nname: ops-hook\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/ops\n`);
    const env = serviceEnv(emu);
    for (const [name, args, extra] of [
      ['plain', [], {}],
      ['signed', [], { POSTUREOPS_PLAN_KEY: KEY }],
      ['shard-1', ['--shard', '1/2'], {}],
      ['shard-2', ['--shard', '2/2'], {}],
    ] as const) {
      const r = await cli(['plan', dir, '--out', join(dir, `${name}.json`), ...args], { env: { ...env, ...extra } });
      expect(r.code, r.stderr).toBe(0);
    }
    const merged = await cli(['merge', join(dir, 'shard-1.json'), join(dir, 'shard-2.json'), '--out', join(dir, 'merged.json')], { env });
    expect(merged.code, merged.stderr).toBe(0);
    files.plain = join(dir, 'plain.json');
    files.shard = join(dir, 'shard-1.json');
    files.merged = join(dir, 'merged.json');
    files.signed = join(dir, 'signed.json');
    served = emu.requestCount();
  });
  afterAll(async () => {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  });

  // No service address or credentials: show cannot read the service.
  const show = (args: string[], env: Record<string, string> = {}) => cli(['show', ...args], { env });

  it.each([
    ['plain', 4],
    ['shard', 2],
    ['merged', 4],
  ] as const)('renders the %s plan in text, JSON and Markdown (%i creates), offline', async (which, creates) => {
    const file = files[which];
    const text = await show([file]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Plan: ${creates} to create, 0 to update, 0 to replace, 0 to delete.`);
    expect(text.stdout.match(/\+ create AlertChannel ops-hook/g)).toHaveLength(creates);
    // Quiet by default: the bookkeeping only with --log-level info.
    expect(text.stdout).not.toContain('API calls made');
    expect((await show([file, '--log-level', 'info'])).stdout).toContain('API calls made');
    expect(text.stderr).toContain(`the saved plan ${file} is unsigned`);

    const json = await show([file, '--format', 'json']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { formatVersion: number; summary: { create: number }; changes: { action: string; account: string }[] };
    expect(doc.summary.create).toBe(creates);
    expect(doc.changes.every((c) => c.action === 'create')).toBe(true);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { changes: { account: string }[] };
    expect(doc.changes.map((c) => c.account)).toEqual(saved.changes.map((c) => c.account));

    const md = await show([file, '--format', 'markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^<!-- postureops/m);
    expect(md.stdout).toContain('ops-hook');
    expect(emu.requestCount()).toBe(served);
  });

  it('a signed plan is verified with POSTUREOPS_PLAN_KEY, shown with a note without it, refused with another key', async () => {
    const verified = await show([files.signed], { POSTUREOPS_PLAN_KEY: KEY });
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stderr).not.toMatch(/unsigned|cannot be checked/);
    const unverified = await show([files.signed]);
    expect(unverified.code).toBe(0);
    expect(unverified.stderr).toContain('is signed, but POSTUREOPS_PLAN_KEY is not set, so its signature cannot be checked');
    const wrong = await show([files.signed], { POSTUREOPS_PLAN_KEY: 'w'.repeat(40) });
    expect(wrong.code).toBe(3);
    expect(wrong.stdout).toBe('');
  });

  it('an edited plan is refused (exit 3) and not shown; a foreign file is an error (exit 1)', async () => {
    const tampered = join(dir, 'tampered.json');
    const value = JSON.parse(await readFile(files.plain, 'utf8')) as { changes: { name: string }[] };
    value.changes[0].name = 'something-else';
    await writeFile(tampered, JSON.stringify(value));
    const r = await show([tampered, '--format', 'json']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`refused: the saved plan ${tampered} is not the plan that was saved; it is not shown`);
    expect(r.stderr).toContain('was changed after it was saved');

    const foreign = join(dir, 'foreign.json');
    await writeFile(foreign, '{"hello": 1}');
    const f = await show([foreign]);
    expect(f.code).toBe(1);
    expect(f.stderr).toContain('is not a postureops plan file');
    expect(f.stderr).not.toMatch(/\n\s+at /);
    const missing = await show([join(dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
  });
});
