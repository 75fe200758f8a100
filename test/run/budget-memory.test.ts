// The budget memory keeps only figures the service's rules could produce, for an hour (issue 29).

import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failureOf } from '../../src/github/pipeline.js';
import { fileBudgetMemory, MEMORY_LIFETIME_MS, plausibleBudget, recalledBudgets } from '../../src/run/budget-memory.js';
import { rememberedNote, type TooLong } from '../../src/run/errors.js';

const now = Date.UTC(2026, 2, 1, 12);
const ok = { bucket: 'GET AlertChannels', limit: 120, remaining: 7, resetSeconds: 30, observedAt: now };
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

describe('plausibleBudget', () => {
  it('keeps what the rules allow, up to their edges', () => {
    for (const b of [ok, { ...ok, limit: 1, remaining: 1 }, { ...ok, remaining: 0 }, { ...ok, remaining: 120 }, { ...ok, resetSeconds: 3600 }, { ...ok, resetSeconds: 0 }, { ...ok, bucket: 'POST AlertChannels/search' }]) {
      expect(plausibleBudget(b, now), JSON.stringify(b)).toBe(true);
    }
    expect(plausibleBudget({ ...ok, observedAt: now - MEMORY_LIFETIME_MS + 1 }, now)).toBe(true);
    expect(plausibleBudget({ ...ok, observedAt: now + 60_000 }, now)).toBe(true);
  });

  it('drops what they cannot produce, and what is an hour old', () => {
    const bad: unknown[] = [
      null,
      'GET AlertChannels',
      { ...ok, limit: 0, remaining: 0 },
      { ...ok, limit: -1 },
      { ...ok, limit: 1.5 },
      { ...ok, limit: Infinity },
      { ...ok, remaining: -1 },
      { ...ok, remaining: 121 },
      { ...ok, remaining: 0.5 },
      { ...ok, resetSeconds: 3601 },
      { ...ok, resetSeconds: -1 },
      { ...ok, resetSeconds: Number.NaN },
      { ...ok, resetSeconds: '30' },
      { ...ok, observedAt: Number.NaN },
      { ...ok, observedAt: '1' },
      { ...ok, observedAt: now - MEMORY_LIFETIME_MS },
      { ...ok, observedAt: now + 60_001 },
      { ...ok, bucket: 'get AlertChannels' },
      { ...ok, bucket: 'GET Alert\u001bChannels' },
      { ...ok, bucket: `GET ${'A'.repeat(201)}` },
      { ...ok, bucket: 42 },
    ];
    for (const b of bad) expect(plausibleBudget(b, now), JSON.stringify(b)).toBe(false);
  });
});

describe('recalledBudgets', () => {
  it('keeps the plausible figures of a file, the newest per bucket, and nothing of a file of another shape', () => {
    const older = { ...ok, remaining: 3, observedAt: now - 1000 };
    expect(recalledBudgets(JSON.stringify({ buckets: [older, ok, { ...ok, bucket: 'GET AlertRules', limit: 0 }] }), now)).toEqual([ok]);
    expect(recalledBudgets(JSON.stringify({ buckets: [ok, older] }), now)).toEqual([ok]);
    expect(recalledBudgets(JSON.stringify({ buckets: [{ ...ok, extra: 'x' }] }), now)).toEqual([ok]);
    for (const text of ['', 'nope', 'null', '[]', '{"buckets":{}}', JSON.stringify({ buckets: Array.from({ length: 1001 }, () => ok) })]) expect(recalledBudgets(text, now)).toEqual([]);
    expect(recalledBudgets(JSON.stringify({ buckets: Array.from({ length: 1000 }, () => ok) }), now)).toEqual([ok]);
  });
});

describe('fileBudgetMemory', () => {
  async function memory() {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-memory-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return fileBudgetMemory(dir, 'https://svc.example', 'KEY');
  }

  it('remembers what it saw, forgets it an hour later, and never writes back what it dropped', async () => {
    const m = await memory();
    await m.remember([ok, { ...ok, bucket: 'GET AlertRules', limit: 0 }], now);
    expect(await m.recall(now)).toEqual([ok]);
    expect(await m.recall(now + MEMORY_LIFETIME_MS)).toEqual([]);
    await writeFile(m.where!, JSON.stringify({ buckets: [ok, { ...ok, bucket: 'GET AlertRules', resetSeconds: 999_999 }] }));
    const later = { ...ok, bucket: 'GET Policies', observedAt: now + 1000 };
    await m.remember([later], now + 1000);
    expect((JSON.parse(await readFile(m.where!, 'utf8')) as { buckets: unknown[] }).buckets).toEqual([ok, later]);
  });

  it('reads nothing from a file too large, or through a symlink', async () => {
    const m = await memory();
    await writeFile(m.where!, JSON.stringify({ buckets: [ok] }) + ' '.repeat(256 * 1024));
    expect(await m.recall(now)).toEqual([]);
    const elsewhere = `${m.where!}.elsewhere`;
    await writeFile(elsewhere, JSON.stringify({ buckets: [ok] }));
    await rm(m.where!);
    await symlink(elsewhere, m.where!);
    expect(await m.recall(now)).toEqual([]);
  });
});

describe('a refusal that rests on remembered figures', () => {
  const too: TooLong = { what: 'read', line: 'x', seconds: 3000, maxDuration: 60, spentSeconds: 0, nothingSent: true, text: { seconds: '50 min', maxDuration: '1 min', spent: '0 s' } };

  it('says so, how old they are, where they are and how to clear them; the Action says the same', () => {
    expect(rememberedNote(too)).toBe('');
    const note = rememberedNote({ ...too, remembered: { file: '/cache/rate-limits-x.json', oldestSeconds: 600 } });
    expect(note).toBe(
      ' (this estimate rests only on rate-limit figures an earlier run saw 10 min ago, kept in /cache/rate-limits-x.json: they expire an hour after they were seen; if no other run uses this key meanwhile, delete that file and run again)',
    );
    expect(rememberedNote({ ...too, remembered: { oldestSeconds: 5 } })).toBe(' (this estimate rests only on rate-limit figures an earlier run saw 5 s ago: they expire an hour after they were seen)');
    const failure = failureOf({ kind: 'too-long', too: { ...too, remembered: { file: '/runner/temp/postureops/rate-limits-x.json', oldestSeconds: 600 } } });
    expect(failure.kind === 'too-long' && failure.message).toContain('kept in /runner/temp/postureops/rate-limits-x.json');
  });
});
