// parsePointer shares one frozen parse per pointer (src/model/json-pointer.ts): the same segments as
// splitting afresh, whatever the pointer, and no caller can change what the next one gets.

import { describe, expect, it } from 'vitest';
import { getAt, parsePointer, setAt, toPointer } from '../../src/model/json-pointer.js';

/** RFC 6901 parsing, written out plainly: the oracle. */
function parseFresh(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`invalid JSON pointer: ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

describe('parsePointer', () => {
  it('gives the segments of a fresh parse, the first time and every time after, past the cache bound', () => {
    const alphabet = ['a', 'b', '/', '~', '0', '1', '~0', '~1', '~01', '', 'é'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const pointers = Array.from({ length: 6000 }, () => {
      const n = next() % 5;
      let p = '';
      for (let i = 0; i < n; i++) p += '/' + Array.from({ length: next() % 4 }, () => alphabet[next() % alphabet.length]).join('');
      return p;
    });
    for (let round = 0; round < 2; round++) for (const p of pointers) expect(parsePointer(p)).toEqual(parseFresh(p));
  });

  it('refuses a pointer not starting with a slash, also when asked again', () => {
    expect(() => parsePointer('a/b')).toThrow('invalid JSON pointer: a/b');
    expect(() => parsePointer('a/b')).toThrow('invalid JSON pointer: a/b');
  });

  it('hands out segments that cannot be changed', () => {
    const segs = parsePointer('/spec/x~1y') as string[];
    expect(() => segs.push('z')).toThrow(TypeError);
    expect(() => {
      segs[0] = 'other';
    }).toThrow(TypeError);
    expect(parsePointer('/spec/x~1y')).toEqual(['spec', 'x/y']);
    expect(getAt({ spec: { 'x/y': 1 } }, '/spec/x~1y')).toBe(1);
    expect(setAt({ spec: {} }, toPointer(['spec', 'a~b']), 2)).toEqual({ spec: { 'a~b': 2 } });
  });
});
