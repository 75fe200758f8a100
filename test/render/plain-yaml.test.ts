// The plan's YAML written directly must be byte for byte yaml's stringify, and a create's diff lines
// (every line added) what the patch computation gives.

import { structuredPatch } from 'diff';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { diffLines, toYaml } from '../../src/render/display.js';
import { plainYaml } from '../../src/render/plain-yaml.js';
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
