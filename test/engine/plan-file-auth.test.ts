// The saved plan's authenticity checks and their messages, called in-process: each refusal names
// the file, what is wrong and what to do, a MAC of any malformed shape is refused (never a crash),
// and the refusals that mean "not the plan that was saved" are the ones the CLI exits 3 for.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Diagnostic, DiagnosticsError } from '../../src/model/diagnostics.js';
import { macMatches, PLAN_KEY_MIN_LENGTH, planMac, TAMPERED_CODES } from '../../src/plan/saved/plan-file.js';
import { readPlan, savePlan } from '../../src/run/plan-files.js';
import type { Plan } from '../../src/model/plan.js';
import { emptyPlan } from '../render/fixtures.js';

const KEY = 'k'.repeat(PLAN_KEY_MIN_LENGTH);
const plan: Plan = emptyPlan();

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'postureops-auth-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const refusal = (p: Promise<unknown>): Promise<Diagnostic> =>
  p.then(
    () => {
      throw new Error('not refused');
    },
    (e: unknown) => {
      if (!(e instanceof DiagnosticsError)) throw e;
      return e.diagnostics[0]!;
    },
  );

/** A plan file holding `value` with a matching checksum (what an editor who recomputes it writes). */
async function withChecksum(name: string, value: Record<string, unknown>): Promise<string> {
  const file = join(dir, name);
  const checksum = createHash('sha256').update(JSON.stringify(value)).digest('hex');
  await writeFile(file, JSON.stringify({ ...value, checksum }));
  return file;
}

describe('macMatches refuses a MAC of any malformed shape without throwing', () => {
  const mac = planMac(plan, KEY);
  it('a list holding the right MAC is no MAC', () => {
    expect(macMatches(plan, KEY, [mac])).toBe(false);
  });
  it('the right MAC with a character before or after it is refused', () => {
    expect(macMatches(plan, KEY, `x${mac}`)).toBe(false);
    expect(macMatches(plan, KEY, `${mac}x`)).toBe(false);
    expect(macMatches(plan, KEY, `${mac}00`)).toBe(false);
  });
});

describe('saved plan files', () => {
  it('are pretty-printed JSON ending with a newline, and leave no file descriptor open', async () => {
    const file = join(dir, 'p.json');
    const fds = (): number => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
    const before = fds();
    for (let i = 0; i < 5; i++) await savePlan(file, plan, KEY);
    expect(fds()).toBe(before);
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "formatVersion": 2,');
  });

  it('a plan that cannot be written says which file and why, as an error', async () => {
    const file = join(dir, 'missing-dir', 'p.json');
    const d = await refusal(savePlan(file, plan));
    expect(d).toEqual({ severity: 'error', code: 'plan-file-unwritable', message: `cannot write plan file ${file} (ENOENT)`, file });
  });

  it('a missing plan and an unreadable one: what is wrong, and how to make one', async () => {
    const missing = join(dir, 'none.json');
    expect(await refusal(readPlan(missing))).toEqual({
      severity: 'error',
      code: 'plan-file-unreadable',
      message: `plan file ${missing} does not exist`,
      file: missing,
      hint: 'create one with `postureops plan --out FILE`',
    });
    const folder = join(dir, 'folder.json');
    await mkdir(folder);
    expect((await refusal(readPlan(folder))).message).toBe(`cannot read plan file ${folder} (EISDIR)`);
  });

  it('not JSON, and another format version: the message and the hint', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"formatVersion": 1,');
    expect(await refusal(readPlan(bad))).toMatchObject({
      code: 'plan-file-corrupt',
      message: `plan file ${bad} is not valid JSON (truncated or edited?)`,
      hint: 'create a new plan with `postureops plan --out FILE`',
    });
    const old = join(dir, 'old.json');
    await writeFile(old, '{"formatVersion": 0}');
    expect(await refusal(readPlan(old))).toMatchObject({ code: 'plan-file-version', hint: 'create the plan again with this version' });
  });

  it('unsigned with a key set, signed with another key, edited: each refusal says so and what to do', async () => {
    const file = join(dir, 'p.json');
    await savePlan(file, plan);
    expect(await refusal(readPlan(file, KEY))).toMatchObject({
      code: 'plan-file-mac-missing',
      message: `plan file ${file} is not signed, and POSTUREOPS_PLAN_KEY is set: only plans signed with that key are applied`,
      hint: 'save the plan with POSTUREOPS_PLAN_KEY set (the same key as this run)',
    });
    await savePlan(file, plan, 'o'.repeat(PLAN_KEY_MIN_LENGTH));
    expect(await refusal(readPlan(file, KEY))).toMatchObject({
      code: 'plan-file-mac-wrong',
      message: `plan file ${file} does not carry a valid signature for POSTUREOPS_PLAN_KEY: it was edited after it was saved, or saved with another key`,
      hint: 'create a new plan with `postureops plan --out FILE` and the same key',
    });
    const saved = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...saved, budget: [{ x: 1 }] }));
    expect(await refusal(readPlan(file))).toMatchObject({
      code: 'plan-file-modified',
      message: `plan file ${file} was changed after it was saved (its checksum does not match); it is not the plan that was reviewed`,
      hint: 'create a new plan with `postureops plan --out FILE`',
    });
  });

  it('the refusals meaning "not the plan that was saved" are exactly the tampering codes', () => {
    expect([...TAMPERED_CODES].sort()).toEqual(['plan-file-mac-missing', 'plan-file-mac-wrong', 'plan-file-modified']);
    expect(TAMPERED_CODES).not.toContain('plan-file-corrupt');
  });

  it('a damaged plan lists its first 5 problems and counts the rest', async () => {
    const seven = await withChecksum('seven.json', { formatVersion: 2 });
    const d = await refusal(readPlan(seven));
    expect(d.code).toBe('plan-file-corrupt');
    expect(d.message).toBe(
      `plan file ${seven} is damaged: accounts must be a list of {name, orgAccess}; summary is missing; unmanaged must be a list; diagnostics must be a list; apiCalls is missing (and 2 more)`,
    );
    const five = await withChecksum('five.json', { formatVersion: 2, accounts: [], summary: {} });
    expect((await refusal(readPlan(five))).message).toBe(
      `plan file ${five} is damaged: unmanaged must be a list; diagnostics must be a list; apiCalls is missing; budget must be a list; changes must be a list`,
    );
    const six = await withChecksum('six.json', { formatVersion: 2, accounts: [] });
    expect((await refusal(readPlan(six))).message).toMatch(/apiCalls is missing; budget must be a list \(and 1 more\)$/);
  });
});
