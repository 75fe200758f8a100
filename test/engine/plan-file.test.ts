import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiagnosticsError } from '../../src/model/diagnostics.js';
import { canonicalJson, liveDigest } from '../../src/plan/core/digest.js';
import { plan } from '../../src/plan/steps/plan.js';
import { checkStale } from '../../src/plan/saved/plan-file.js';
import { loadPlan, savePlan } from '../../src/run/plan-files.js';
import type { Plan } from '../../src/model/plan.js';
import { desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

const hook = (url: string) => ({ type: 'Webhook', data: { url } });
const SECRET = 'https://hooks.example/T000/very-secret';

const liveRecords = [
  live('Channel', 'ops', 'C1', hook('old')),
  live('Channel', 'gone', 'C2', hook('g')),
  live('Rule', 'r', 'R1', { channels: ['ops'], severity: [1] }),
];

function makePlan(): Plan {
  const d = desiredState(
    [
      desired('Channel', 'ops', { type: 'Slack', data: { url: SECRET } }, { envRefs: { '/data/url': '${env:HOOK}' } }),
      desired('Channel', 'new', hook('n')),
      desired('Rule', 'r', { channels: ['ops', 'new'], severity: [1] }),
    ],
    { Channel: true },
  );
  const ops = { ...liveRecords[0], spec: { type: 'Slack', data: { url: 'old' } } };
  const result = plan(d, liveState([ops, ...liveRecords.slice(1)]), { kinds: FAKE_KINDS, force: true });
  expect(result.plan).toBeDefined();
  return result.plan!;
}

describe('digests', () => {
  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { y: 1, x: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"x":2,"y":1}]},"b":1}');
  });

  it('is sha256 of {id, spec}, independent of key order, and absent for creates', () => {
    const a = liveDigest({ id: 'C1', spec: { type: 'W', data: { a: 1, b: 2 } } });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(liveDigest({ id: 'C1', spec: { data: { b: 2, a: 1 }, type: 'W' } })).toBe(a);
    expect(liveDigest({ id: 'C2', spec: { type: 'W', data: { a: 1, b: 2 } } })).not.toBe(a);
    expect(liveDigest(undefined)).toBe('absent');
  });
});

describe('plan files', () => {
  // A folder per case: the round trip checks the folder holds nothing but its file.
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'postureops-plan-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('round-trips a plan, with mode 0600 and no temp file left', async () => {
    const p = makePlan();
    const file = join(dir, 'plan.json');
    await savePlan(file, p);
    expect(await loadPlan(file)).toEqual(p);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['plan.json']);
    const text = await readFile(file, 'utf8');
    expect(text.includes(SECRET)).toBe(false);
    // Deterministic: saving again gives the same bytes.
    await savePlan(file, makePlan());
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('refuses a saved plan edited after it was saved', async () => {
    const file = join(dir, 'edited.json');
    await savePlan(file, makePlan());
    const edited = (await readFile(file, 'utf8')).replace('"action": "delete"', '"action": "create"');
    expect(edited).not.toBe(await readFile(file, 'utf8'));
    await writeFile(file, edited);
    const err = await loadPlan(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as DiagnosticsError).diagnostics[0]).toMatchObject({ code: 'plan-file-modified', file });
  });

  const bad: { name: string; content?: string; code: string; text: RegExp }[] = [
    { name: 'missing.json', code: 'plan-file-unreadable', text: /does not exist/ },
    { name: 'corrupt.json', content: '{"formatVersion": 1, "chan', code: 'plan-file-corrupt', text: /not valid JSON/ },
    { name: 'foreign.json', content: '{"name": "some-package"}', code: 'plan-file-foreign', text: /not a postureops plan/ },
    { name: 'future.json', content: '{"formatVersion": 99}', code: 'plan-file-version', text: /format version 99/ },
    {
      name: 'damaged.json',
      content: withChecksum({ formatVersion: 2, accounts: [], summary: {}, unmanaged: [], diagnostics: [], apiCalls: {}, budget: [], changes: [{ key: 'k', action: 'explode' }] }),
      code: 'plan-file-corrupt',
      text: /changes\[0\]\.action must be one of create, update, replace, delete/,
    },
  ];
  for (const b of bad) {
    it(`${b.name} → ${b.code} naming the file`, async () => {
      const file = join(dir, b.name);
      if (b.content !== undefined) await writeFile(file, b.content);
      const err = await loadPlan(file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DiagnosticsError);
      const diag = (err as DiagnosticsError).diagnostics[0];
      expect(diag.code).toBe(b.code);
      expect(diag.file).toBe(file);
      expect(diag.message).toContain(file);
      expect(diag.message).toMatch(b.text);
    });
  }
});

function withChecksum(plan: Record<string, unknown>): string {
  return JSON.stringify({ ...plan, checksum: createHash('sha256').update(JSON.stringify(plan)).digest('hex') });
}

describe('checkStale', () => {
  // Planned inside each test, not while collecting: mutation testing attributes a plan made outside a
  // test to no test, and then reruns every test for each mutant of the engine.
  let p: Plan;
  beforeEach(() => {
    p = makePlan();
  });
  const fresh = () => [{ ...liveRecords[0], spec: { type: 'Slack', data: { url: 'old' } } }, ...liveRecords.slice(1)];

  it('the live state the plan came from is not stale', () => {
    expect(p.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['delete prod/Channel/gone', 'create prod/Channel/new', 'update prod/Channel/ops', 'update prod/Rule/r']);
    expect(checkStale(p, liveState(fresh()))).toBeUndefined();
  });

  it('names each resource that moved', () => {
    const moved = fresh();
    moved[0] = { ...moved[0], spec: { type: 'Slack', data: { url: 'edited in the console' } } };
    const withoutGone = moved.filter((r) => r.name !== 'gone');
    const refusal = checkStale(p, liveState([...withoutGone, live('Channel', 'new', 'C7', hook('n'))]));
    expect(refusal?.code).toBe('stale');
    expect(refusal?.details).toEqual([
      'prod/Channel/gone: its live record (id C2) is gone or renamed',
      'prod/Channel/new: to be created, but it exists now',
      'prod/Channel/ops: its live record changed since the plan',
    ]);
  });

  it('the refusal counts what moved and says to plan again', () => {
    const refusal = checkStale(p, liveState(fresh().filter((r) => r.name !== 'gone')));
    expect(refusal).toEqual({
      code: 'stale',
      message: 'the saved plan is stale: 1 of its changes no longer match the live state; create a new plan',
      details: ['prod/Channel/gone: its live record (id C2) is gone or renamed'],
    });
  });

  it('a record deleted and created again under its name (a new id, the same spec) is not the record planned', () => {
    const recreated = fresh().map((r) => (r.name === 'gone' ? { ...r, id: 'C2-NEW' } : r));
    expect(checkStale(p, liveState(recreated))?.details).toEqual(['prod/Channel/gone: its live record (id C2) is gone or renamed']);
  });

  it('a second record of a planned name created since does not hide the planned one: the plan names its record by id', () => {
    // A fresh plan would refuse the ambiguous name; the saved one still changes exactly the record it was reviewed for.
    expect(checkStale(p, liveState([...fresh(), live('Channel', 'ops', 'C9', hook('other'))]))).toBeUndefined();
    expect(checkStale(p, liveState([live('Channel', 'ops', 'C9', hook('other')), ...fresh()]))).toBeUndefined();
  });

  it('only changes that rename are renames: a live record named "undefined" is no change\'s old name', () => {
    expect(checkStale(p, liveState([...fresh(), live('Channel', 'undefined', 'C8', hook('x'))]))).toBeUndefined();
  });

  it('a referenced id that disappeared makes the plan stale', () => {
    const q = structuredClone(p);
    const rule = q.changes.find((c) => c.kind === 'Rule')!;
    rule.refs = [{ kind: 'Channel', name: 'keep', id: 'C-OLD' }];
    expect(checkStale(q, liveState(fresh()))?.details).toEqual(['prod/Rule/r: the Channel keep it refers to (id C-OLD) is gone']);
  });
});

describe('savePlan errors', () => {
  it('a folder that does not exist → plan-file-unwritable naming the file', async () => {
    const file = join(tmpdir(), 'postureops-no-such-dir-4711', 'plan.json');
    const err = await savePlan(file, makePlan()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DiagnosticsError);
    expect((err as DiagnosticsError).diagnostics[0]).toMatchObject({ code: 'plan-file-unwritable', file });
    expect((err as DiagnosticsError).message).toContain('ENOENT');
  });
});
