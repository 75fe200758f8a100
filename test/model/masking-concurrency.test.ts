import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/model/masking.js';
import { mapBounded, Semaphore } from '../../src/model/concurrency.js';

const KEY = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';
const mask = (values: string[], opts: Partial<ConstructorParameters<typeof Redactor>[0]> = {}) =>
  new Redactor({ mask: '***', ...opts }, values);

describe('Redactor', () => {
  it.each([
    ['as written', (v: string) => `error: ${v}`],
    ['JSON-escaped (a 400 echoing the request body)', (v: string) => `Invalid data: ${JSON.stringify({ data: { privateKey: v } })}`],
    ['JSON-escaped twice', (v: string) => JSON.stringify(JSON.stringify({ k: v }))],
    ['URL-encoded', (v: string) => `https://x.example/?k=${encodeURIComponent(v)}`],
    ['base64', (v: string) => Buffer.from(v).toString('base64')],
    ['base64 inside a longer encoded text, shifted by one byte', (v: string) => Buffer.from('a' + v + 'zz').toString('base64')],
    ['base64 inside a longer encoded text, shifted by two bytes', (v: string) => Buffer.from('ab' + v).toString('base64')],
    ['base64url', (v: string) => Buffer.from('ab' + v).toString('base64url')],
  ])('hides a multi-line key %s', (_what, echo) => {
    const text = echo(KEY);
    const out = mask([KEY]).redact(text);
    expect(out).not.toBe(text);
    expect(out).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
    // No run of 12 characters of any encoded form survives.
    const b64 = Buffer.from(KEY).toString('base64');
    for (let i = 4; i + 12 < b64.length - 4; i += 7) expect(out).not.toContain(b64.slice(i, i + 12));
  });

  it('removes a value containing another whole, and leaves other text alone', () => {
    expect(mask(['abcd', 'abcdefgh']).redact('x abcdefgh y abcd z')).toBe('x *** y *** z');
  });

  it('removes short values only where they stand alone, or never with short: skip', () => {
    expect(mask(['ab']).redact('ab cab ab.')).toBe('*** cab ***.');
    expect(mask(['ab'], { short: 'skip' }).redact('ab cab')).toBe('ab cab');
  });

  it('names the labels of the values a text holds, in any form', () => {
    const r = mask([]);
    r.add('hunter2-secret', 'A');
    r.add('other-value-9', 'B');
    expect(r.labelsIn(`x ${encodeURIComponent('hunter2-secret')} y`)).toEqual(['A']);
    expect(r.labelsIn('nothing here')).toEqual([]);
  });
});

describe('Semaphore and mapBounded', () => {
  it('never runs more than the bound, results in input order', async () => {
    let active = 0;
    let peak = 0;
    const gates: Array<() => void> = [];
    const done = mapBounded([1, 2, 3, 4, 5], 2, async (n) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise<void>((resolve) => gates.push(resolve));
      active--;
      return n * 10;
    });
    let settled = false;
    void done.then(() => (settled = true));
    while (!settled) {
      await new Promise((r) => setImmediate(r));
      gates.shift()?.();
    }
    expect(await done).toEqual([10, 20, 30, 40, 50]);
    expect(peak).toBe(2);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new Semaphore(0)).toThrow(/positive integer/);
  });
});
