// clone() copies a record's objects and arrays (kinds change their copy), sharing its strings.

import { describe, expect, it } from 'vitest';
import { clone } from '../../src/kinds/common.js';
import type { JsonObject } from '../../src/model/json.js';

describe('clone', () => {
  it('is a deep copy: changing the copy leaves the original, frozen or not', () => {
    const original = Object.freeze({ a: Object.freeze([1, Object.freeze({ b: 'x' })]), c: null, d: true }) as unknown as JsonObject;
    const copy = clone(original);
    expect(copy).toEqual(original);
    expect(Object.isFrozen(copy)).toBe(false);
    ((copy.a as JsonObject[])[1] as JsonObject).b = 'y';
    expect(((original.a as JsonObject[])[1] as JsonObject).b).toBe('x');
  });

  it('keeps a member named __proto__ a member, as the service sent it, without touching the prototype', () => {
    const original = JSON.parse('{"__proto__":{"polluted":true},"name":"n"}') as JsonObject;
    const copy = clone(original);
    expect(Object.keys(copy)).toEqual(['__proto__', 'name']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(original));
  });
});
