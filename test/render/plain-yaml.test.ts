// The plan's YAML written directly must be byte for byte yaml's stringify, and a create's diff lines
// (every line added) what the patch computation gives.

import { structuredPatch } from 'diff';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { changeDiff, childDiff, diffLines, displayPair, showEnvMarkers, toYaml } from '../../src/render/display.js';
import { plainYaml, plainYamlLines } from '../../src/render/plain-yaml.js';
import type { Change } from '../../src/model/plan.js';
import type { Json } from '../../src/model/json.js';

const STRINGS = [
  'a', 'Zed', 'webhookUrl', 'https://x.example.com/a/${env:HOOK}', '(from https://h/${env:T})', 'null', 'Null', 'true', 'FALSE',
  'no', 'yes', 'on', '~', '1', '007', '100000000006', '100000000007.dkr.ecr.us-east-1.amazonaws.com', '1.5', '-1', '1e3', '1e3x',
  '0x1F', '0x1G', '0o7', '12:30', '1.2.3', '.inf', '.nan', 'x y', 'x: y', 'x:y', 'x:', 'x ', ' x', '#x', 'x #y', 'x#y', 'a-b',
  '-a', '-', '?', '.', '', '---', '...x', 'a,b', '{a}', '[a]', 'a{b}', '$x', '/p/q', 'é', 'a\nb', 'a\tb', "it's", 'say "hi"',
  '@me', 'a@b', '%x', '&x', '*x', '!x', 'x!', 'a=b', 'a;b', '(a)', '()', 'a+b', '_u', 'a~b', 'T000/B000', 'x'.repeat(1001),
  'k'.repeat(999),
];
const NUMBERS = [0, 1, -1, 42, 123456789012, 1.5, -0, 1e21, 2 ** 53, 0.1];

/** Deterministic values of every shape (a linear congruential generator, fixed seed). */
function values(count: number): Json[] {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const value = (depth: number): Json => {
    const r = rnd();
    if (depth > 3 || r < 0.45) {
      const q = rnd();
      return q < 0.6 ? pick(STRINGS) : q < 0.8 ? pick(NUMBERS) : q < 0.9 ? rnd() < 0.5 : null;
    }
    const n = Math.floor(rnd() * 4);
    if (r < 0.7) return Object.fromEntries(Array.from({ length: n }, () => [pick(STRINGS), value(depth + 1)]));
    return Array.from({ length: n }, () => value(depth + 1));
  };
  return Array.from({ length: count }, () => value(0));
}

const yamlOf = (v: Json) => stringify(v, { sortMapEntries: true, lineWidth: 0, minContentWidth: 0 });

describe('plainYaml', () => {
  it('writes what yaml writes, for every value it takes', () => {
    let taken = 0;
    for (const v of values(20_000)) {
      const mine = plainYaml(v);
      if (mine === undefined) continue;
      taken++;
      expect(mine).toBe(yamlOf(v));
    }
    // Most values are taken; the others are left to yaml.
    expect(taken).toBeGreaterThan(8_000);
    expect(taken).toBeLessThan(20_000);
  });

  it('leaves strings yaml quotes or folds, and non-integers, to yaml', () => {
    for (const v of ['x: y', 'a\nb', '', ' x', 'x ', '#x', "it's", '-', '1.5', 'é', 'x'.repeat(1001), 1.5, -0, { 'a b: c': 1 }, [{ k: 'say "hi"' }]]) {
      expect(plainYaml(v as Json)).toBeUndefined();
      expect(toYaml(v as Json)).toBe(yamlOf(v as Json));
    }
  });

  it('writes nested shapes as yaml does', () => {
    const v = { b: [{ x: 1, a: [[], {}, ['p', 'q']] }, 'r'], a: { z: null, y: true, '100': '100' }, c: [] };
    expect(plainYaml(v)).toBe(yamlOf(v));
    expect(plainYaml(v)).toBe('a:\n  "100": "100"\n  y: true\n  z: null\nb:\n  - a:\n      - []\n      - {}\n      - - p\n        - q\n    x: 1\n  - r\nc: []\n');
  });
});

describe("a create's diff lines", () => {
  /** What the general path gives: the patch of '' → text, hunk lines as add/remove/context. */
  const reference = (text: string) =>
    structuredPatch('before', 'after', '', text, undefined, undefined, { context: 3 }).hunks.flatMap((h) =>
      h.lines.filter((l) => !l.startsWith('\\')).map((l) => ({ kind: l[0] === '+' ? 'add' : l[0] === '-' ? 'remove' : 'context', text: l.slice(1) })),
    );

  it.each(['', 'a: 1\n', 'a: 1\nb:\n  - x\n\n  - y\n', 'no newline at the end', '\n\n', 'a\n\nb\n\n'])('%j', (text) => {
    expect(diffLines('', text)).toEqual(reference(text));
  });

  it('from yaml of many values', () => {
    for (const v of values(500)) expect(diffLines('', yamlOf(v))).toEqual(reference(yamlOf(v)));
  });
});

describe('the lines written directly', () => {
  it('are the text plainYaml writes, split at its line ends', () => {
    let taken = 0;
    for (const v of values(5_000)) {
      const text = plainYaml(v);
      const lines = plainYamlLines(v);
      expect(lines === undefined).toBe(text === undefined);
      if (lines === undefined || text === undefined) continue;
      taken++;
      expect(lines.join('\n') + '\n').toBe(text);
      expect(lines.every((l) => !l.includes('\n') && !l.includes('\r'))).toBe(true);
    }
    expect(taken).toBeGreaterThan(2_000);
  });

  it("make a create's diff, and a child's, what the diff of its YAML text gives, for specs yaml has to write too", () => {
    let fallback = 0;
    values(3_000).forEach((v, i) => {
      const after = (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : { v }) as Change['after'] & object;
      // Half of them with an env marker inside, shown as its template.
      const spec = i % 2 === 0 ? { ...after, url: { $env: 'https://h/${env:T}' } } : after;
      const change = { key: 'a/K/n', action: 'create', kind: 'K', account: 'a', name: 'n', after: spec, sensitive: [], writeOnly: [], dependsOn: [] } as unknown as Change;
      if (plainYaml(showEnvMarkers(spec)) === undefined) fallback++;
      expect(changeDiff(change)).toEqual(diffLines('', toYaml(displayPair(change).after)));
      expect(childDiff({ after: spec })).toEqual(diffLines('', toYaml(showEnvMarkers(spec))));
    });
    expect(fallback).toBeGreaterThan(100);
  });
});

describe('showEnvMarkers', () => {
  /** The definition: a copy of everything, each marker replaced. */
  const copyShown = (value: Json): Json => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && typeof value.$env === 'string') return `(from ${value.$env})`;
    if (Array.isArray(value)) return value.map(copyShown);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, copyShown(x)]));
    return value;
  };

  it('replaces every marker, leaves what it is given untouched, and returns a part without a marker as it is', () => {
    const kept = { a: [1, { b: 'x' }], c: null };
    const value = { kept, list: [{ $env: '${env:A}' }, 'y', [{ $env: 'p/${env:B}' }]], deep: { e: { $env: '${env:C}', other: 1 } }, m: { $env: '${env:D}' } };
    const before = JSON.stringify(value);
    const shown = showEnvMarkers(value) as Record<string, Json>;
    expect(shown).toEqual(copyShown(value));
    expect(shown.list).toEqual(['(from ${env:A})', 'y', ['(from p/${env:B})']]);
    expect(shown.m).toBe('(from ${env:D})');
    // Two members beside `$env`: no marker, kept whole.
    expect(shown.deep).toBe(value.deep);
    expect(shown.kept).toBe(kept);
    expect(JSON.stringify(value)).toBe(before);
    expect(showEnvMarkers(kept)).toBe(kept);
    for (const v of values(2_000)) expect(showEnvMarkers(v)).toEqual(copyShown(v));
  });
});
