// Issue 29 at the bottom layer: the escape `$${env:` reads back as the text it stands for, whatever
// the text; what may be declared; the set of read values masked in data before any rendering and in
// text (escaped, split across lines, JSON-encoded); marker-shaped data never resolved.

import { describe, expect, it } from 'vitest';
import { declarationProblem, envNames, escapeEnv, hasUnclosedEnvRef, interpolate, isDeclared, malformedEnvRefs, scanEnvRefs, unescapeEnv } from '../../src/model/env.js';
import { DATA_MARKER, ENV_MARKER, ForbiddenEnvError, MASK, envTemplates, markEnv, protectData, resolveEnv } from '../../src/model/env-markers.js';
import type { JsonObject } from '../../src/model/json.js';
import { ReadValues } from '../../src/model/read-values.js';

/** A small deterministic generator (no clock, no Math.random). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('the escape', () => {
  const PARTS = ['$', '$$', '{', '}', 'env', ':', 'X', '_1', '${env:', '$${env:', '${env:X}', '$${env:X}', 'a b', '\n'];

  it('any text, escaped, reads back as itself and holds no reference (20,000 generated texts)', () => {
    const r = rng(29);
    for (let n = 0; n < 20_000; n++) {
      const text = Array.from({ length: 1 + Math.floor(r() * 8) }, () => PARTS[Math.floor(r() * PARTS.length)]).join('');
      const written = escapeEnv(text);
      expect(envNames(written), text).toEqual([]);
      expect(unescapeEnv(written), text).toBe(text);
      expect(interpolate(written, { X: 'SECRET' }).value, text).toBe(text);
    }
  });

  it('`$${env:X}` is the literal `${env:X}`; a reference beside it is still read', () => {
    expect(interpolate('$${env:X}', { X: 'v' }).value).toBe('${env:X}');
    expect(interpolate('a $${env:X} b ${env:X}', { X: 'v' }).value).toBe('a ${env:X} b v');
    expect(envNames('$${env:A}${env:B}')).toEqual(['B']);
  });
});

describe('what a configuration may declare', () => {
  it.each(['SVC_API_SECRET', 'svc_api_secret', 'SVC_*', 'S*', 'SV*', '*', 'GITHUB_TOKEN', 'GitHub_*', 'GITHUB*', 'ACTIONS_RUNTIME_TOKEN', 'RUNNER_TEMP', 'INPUT_GITHUB-TOKEN', 'Input_*', 'POSTUREOPS_PLAN_KEY', 'P*', 'R*', 'I*', 'A*', 'G*'])(
    '%s: refused',
    (d) => expect(declarationProblem(d)).toBeDefined(),
  );
  it.each(['SLACK_OPS_URL', 'PAGERDUTY_*', 'SVC', 'SECRET_*', 'SLACK*', 'GH_TOKEN', 'RUN_ID', 'INPUTS', 'B*'])('%s: accepted', (d) => expect(declarationProblem(d)).toBeUndefined());
  it('a prefix covers by its stem, as written; a forbidden name is never readable whatever is declared', () => {
    expect(isDeclared('PAGERDUTY_KEY', ['PAGERDUTY_*'])).toBe(true);
    expect(isDeclared('pagerduty_key', ['PAGERDUTY_*'])).toBe(false);
    expect(isDeclared('SLACK', ['SLACK_*'])).toBe(false);
    expect(isDeclared('SVC_API_SECRET', ['SVC_API_SECRET'])).toBe(false);
  });
});

describe('ReadValues', () => {
  const multi = 'first line of a SECRET\nsecond line of a SECRET';
  const quoted = 'pa"ss/word\\with-escapes';
  const values = new ReadValues([multi, quoted, 'Abc', 'x']);

  it('masks text as is, JSON-escaped, line by line; a value shorter than 3 is not masked at all', () => {
    const text = `a ${multi} b ${JSON.stringify({ v: quoted })} c ${JSON.stringify(multi)}\nsecond line of a SECRET alone\n x marks`;
    const masked = values.maskText(text);
    expect(masked).not.toContain('SECRET');
    expect(masked).not.toContain('pa"ss');
    expect(masked).not.toContain('pa\\"ss');
    expect(masked).toContain(' x marks');
    expect(masked).toContain(MASK);
  });

  it('masks data before it is rendered: a short value where it stands alone, keys, maps and sets', () => {
    const data = { cells: new Map([['Abc', ['Abc', 'Abcdef', 'an Abc here']]]), [quoted]: new Set([`${quoted}!`]), n: 3 };
    const masked = values.maskData(data);
    expect([...masked.cells.keys()]).toEqual([MASK]);
    expect(masked.cells.get(MASK)).toEqual([MASK, 'Abcdef', `an ${MASK} here`]);
    expect(Object.keys(masked)).toEqual(['cells', MASK, 'n']);
    expect(masked.n).toBe(3);
  });

  it('copies only the paths to what it masks: the rest is kept as it is, the data given is never changed', () => {
    const untouched = { a: ['x', { b: 'plain' }], n: 1 };
    const data = { untouched, hit: { list: ['ok', `an Abc here`] } };
    const masked = values.maskData(data);
    expect(masked.untouched).toBe(untouched);
    expect(masked.hit.list).toEqual(['ok', `an ${MASK} here`]);
    expect(data.hit.list[1]).toBe('an Abc here');
    expect(values.maskData(untouched)).toBe(untouched);
    // A `__proto__` member stays an own member, in a copy as in the original.
    const proto = JSON.parse('{"__proto__": "Abc", "k": 1}') as Record<string, unknown>;
    const out = values.maskData(proto);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe(MASK);
  });

  it('masks first, then shortens: a rendering that cuts or escapes the value shows none of it', () => {
    const cut = (text: string) => text.slice(0, 20);
    const escapeMd = (text: string) => text.replace(/[\\"/_]/g, (c) => `\\${c}`);
    expect(values.render({ v: quoted }, (d) => escapeMd(cut(d.v)))).toBe(MASK);
    // Without masking first, the escaped cut would hold most of it.
    expect(escapeMd(cut(quoted))).toContain('pa\\"ss');
  });
});

describe('data that looks like a marker', () => {
  it('is wrapped as data and sent as it is: a live {"$env": "${env:SVC_API_SECRET}"} is never resolved', () => {
    const spec: JsonObject = { data: { hook: { [ENV_MARKER]: '${env:SVC_API_SECRET}' }, url: '${env:HOOK}' } };
    const protectedSpec = protectData(spec, ['/data/url']);
    expect(protectedSpec.data).toEqual({ hook: { [DATA_MARKER]: { [ENV_MARKER]: '${env:SVC_API_SECRET}' } }, url: '${env:HOOK}' });
    const after = { ...protectedSpec, data: { ...(protectedSpec.data as JsonObject), url: { [ENV_MARKER]: '${env:HOOK}' } } };
    expect(resolveEnv(after, { HOOK: 'h', SVC_API_SECRET: 'stolen' })).toEqual({ data: { hook: { [ENV_MARKER]: '${env:SVC_API_SECRET}' }, url: 'h' } });
  });

  it('a marker-shaped object is kept as a marker only where a kept pointer names it or a member of it, in arrays and escaped names too', () => {
    const hook = { [ENV_MARKER]: '${env:HOOK}' };
    const spec: JsonObject = { 'a/b': [{ x: hook }, { x: hook }], 'c~d': { y: hook }, e: hook };
    const out = protectData(spec, ['/a~1b/1/x', '/c~0d/y/z', '/e']);
    expect(out).toEqual({ 'a/b': [{ x: { [DATA_MARKER]: hook } }, { x: hook }], 'c~d': { y: hook }, e: hook });
    // What holds nothing marker-shaped outside a kept pointer is the very object.
    expect((out['a/b'] as JsonObject[])[1]).toBe((spec['a/b'] as JsonObject[])[1]);
    expect(out['c~d']).toBe(spec['c~d']);
    expect(protectData(spec, ['/a~1b/0/x', '/a~1b/1/x', '/c~0d/y', '/e'])).toBe(spec);
  });

  it('only an object whose one member is a marker key is wrapped; a kept pointer protects only itself and its members', () => {
    const hook = { [ENV_MARKER]: '${env:HOOK}' };
    const literal = { $literal: { resource: 'r', pointer: '/p', sha256: 'x' } };
    const data = { [DATA_MARKER]: 'd' };
    const twoKeys = { [ENV_MARKER]: '${env:HOOK}', note: 'n' };
    const spec: JsonObject = { a: 1, b: twoKeys, c: hook, ab: hook, l: literal, d: data, n: null, s: 'text' };
    const out = protectData(spec, ['/ab', '/abc/x']);
    expect(out).toEqual({ a: 1, b: twoKeys, c: { [DATA_MARKER]: hook }, ab: hook, l: { [DATA_MARKER]: literal }, d: { [DATA_MARKER]: data }, n: null, s: 'text' });
    expect(Object.keys(out)).toEqual(Object.keys(spec));
    expect(out.b).toBe(twoKeys);
    // A kept "/ab" or "/abc/x" does not keep "/a…" siblings that only share a prefix.
    expect(protectData({ a: hook }, ['/ab'])).toEqual({ a: { [DATA_MARKER]: hook } });
    expect(protectData({ a: { b: hook } }, ['/a/bc'])).toEqual({ a: { b: { [DATA_MARKER]: hook } } });
  });

  it('the wrapped copy is an ordinary object: its members own, enumerable and writable, a "__proto__" member too', () => {
    const hook = { [ENV_MARKER]: '${env:HOOK}' };
    const spec = JSON.parse('{"x": 1, "__proto__": {"y": 2}, "h": {"$env": "${env:HOOK}"}}') as JsonObject;
    const out = protectData(spec, []);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    for (const key of ['x', '__proto__', 'h']) {
      expect(Object.getOwnPropertyDescriptor(out, key), key).toEqual({ value: key === 'h' ? { [DATA_MARKER]: hook } : spec[key], enumerable: true, writable: true, configurable: true });
    }
    expect(JSON.stringify(out)).toBe('{"x":1,"__proto__":{"y":2},"h":{"$data":{"$env":"${env:HOOK}"}}}');
  });

  it('a marker naming a forbidden variable (a forged plan) is refused, its value never read', () => {
    expect(() => resolveEnv({ u: { [ENV_MARKER]: '${env:SVC_API_SECRET}' } }, { SVC_API_SECRET: 'stolen' })).toThrow(ForbiddenEnvError);
  });
});

describe('scanEnvRefs: the three readings of a template at once', () => {
  it('gives what envNames, malformedEnvRefs and hasUnclosedEnvRef give, on every text of a small alphabet', () => {
    // Every text of up to 4 pieces from pieces that make and break references.
    const pieces = ['${env:', '$${env:', 'A', '1', '}', ' ', '${env:B}', '$'];
    let texts = [''];
    let seen = 0;
    for (let len = 1; len <= 4; len++) {
      texts = texts.flatMap((t) => pieces.map((p) => t + p));
      for (const text of texts) {
        expect(scanEnvRefs(text), text).toEqual({ names: envNames(text), malformed: malformedEnvRefs(text), unclosed: hasUnclosedEnvRef(text) });
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(4_000);
  });
});

describe('env markers placed and found', () => {
  it('markEnv places a marker only where the spec holds a value; envTemplates walks past nulls', () => {
    const spec: JsonObject = { a: 'x', n: null };
    expect(markEnv(spec, { '/a': '${env:A}', '/missing': '${env:M}', '/deep/er': '${env:D}' })).toEqual({ a: { [ENV_MARKER]: '${env:A}' }, n: null });
    expect(envTemplates({ n: null, l: [null, { [ENV_MARKER]: '${env:B}' }], s: 'x' })).toEqual(['${env:B}']);
  });
});
