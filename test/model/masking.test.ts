// What the one redactor must hide, form by form, and what it must leave alone. Each case is one
// echo form on its own, so that losing that form (a mutation, a refactor) fails exactly one test.
import { describe, expect, it } from 'vitest';
import { echoForms, Redactor } from '../../src/model/masking.js';

const mask = (values: string[], opts: Partial<ConstructorParameters<typeof Redactor>[0]> = {}) =>
  new Redactor({ mask: '***', ...opts }, values);

describe('Redactor: length thresholds', () => {
  it('a 4-character credential is hidden anywhere, even inside a word (minLength is inclusive)', () => {
    expect(mask(['k3Y9'], { short: 'skip' }).redact('xk3Y9x')).toBe('x***x');
    expect(mask(['k3Y9'], { minLength: 4, short: 'standalone' }).redact('xk3Y9x')).toBe('x***x');
  });

  it('the default minimum length is 4: 4 characters hidden inside a word, 3 only standing alone', () => {
    expect(mask(['wxyz']).redact('awxyzb')).toBe('a***b');
    expect(mask(['xyz']).redact('axyzb xyz')).toBe('axyzb ***');
  });

  it('a value shorter than minLength is never hidden with short: skip, and not counted', () => {
    const r = mask(['abc'], { short: 'skip' });
    expect(r.size).toBe(0);
    expect(r.redact('abc')).toBe('abc');
  });

  it('a short value is not hidden next to a letter or digit of either case on either side', () => {
    const r = mask(['ab']);
    for (const text of ['cab', 'abc', 'Zab', 'abZ', '9ab', 'ab9']) expect(r.redact(text)).toBe(text);
    expect(r.redact('(ab) ab. -ab- ab')).toBe('(***) ***. -***- ***');
  });

  it('a short value with regular-expression characters is matched literally', () => {
    const r = mask(['(.)']);
    expect(r.redact('(x) (.)')).toBe('(x) ***');
    expect(mask(['a.+']).redact('abb a.+')).toBe('abb ***');
  });
});

describe('Redactor: echo forms, each on its own', () => {
  it('JSON-escaped: a value with a quote and a backslash', () => {
    const v = 'pa"ss\\word';
    expect(mask([v]).redact(JSON.stringify({ k: v }))).toBe('{"k":"***"}');
  });

  it('the escaped-slash form (\\/) is hidden', () => {
    const v = 'abc/def/ghi';
    expect(mask([v]).redact('{"k":"abc\\/def\\/ghi"}')).toBe('{"k":"***"}');
  });

  it('the \\u000a / \\u000d / \\u0009 spelling of control characters is hidden', () => {
    const v = 'ab\ncd\nef\tgh\ti\r\nj\rk';
    const text = JSON.stringify(v).replace(/\\n/g, '\\u000a').replace(/\\r/g, '\\u000d').replace(/\\t/g, '\\u0009');
    expect(text).toContain('\\u000a');
    expect(mask([v]).redact(`x ${text} y`)).toBe('x "***" y');
  });

  it('upper- and lowercase %xx URL encodings are hidden', () => {
    const v = 'a/b c?d=e/f';
    const upper = encodeURIComponent(v);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    expect(lower).not.toBe(upper);
    expect(mask([v]).redact(`?k=${upper}`)).toBe('?k=***');
    expect(mask([v]).redact(`?k=${lower}`)).toBe('?k=***');
  });

  it('base64 of a 6-character secret (the shortest with a whole base64 core) is hidden', () => {
    const v = 's3cr3t';
    expect(mask([v]).redact(Buffer.from(v).toString('base64'))).toBe('***');
  });

  it('a 5-character secret has no base64 form: no 7-character fragment shreds encoded text', () => {
    expect(echoForms('s3cr3').every((f) => f.includes('s3cr3') || /%/.test(f))).toBe(true);
  });

  it.each([0, 1, 2])('base64url with - and _ is hidden at byte offset %i', (pad) => {
    // '>>>' encodes to 'Pj4+' and '???' to 'Pz8/': several + and / in every alignment.
    const v = '>>>a???b>>>c???d>>>';
    const prefix = 'x'.repeat(pad);
    const std = Buffer.from(prefix + v + 'yy').toString('base64');
    const url = Buffer.from(prefix + v + 'yy').toString('base64url');
    expect(std.match(/[+/]/g)?.length).toBeGreaterThan(2);
    for (const text of [std, url]) {
      const out = mask([v]).redact(text);
      expect(out).toContain('***');
      // No 8-character run of the encoded secret survives.
      for (let i = 4; i + 8 <= text.length - 4; i++) expect(out).not.toContain(text.slice(i, i + 8));
    }
  });

  it('the forms of a plain 8-character value: itself and its base64 at the three byte alignments', () => {
    // Fragments under 8 base64 characters are left out: they would match unrelated encoded text.
    expect(echoForms('abcdefgh').sort()).toEqual(['FiY2RlZmdo', 'YWJjZGVmZ2', 'abcdefgh', 'hYmNkZWZna']);
    expect(echoForms('s3cr3t').filter((f) => f !== 's3cr3t')).toEqual([Buffer.from('s3cr3t').toString('base64')]);
  });

  it('a value is hidden as written even when every other form of it differs', () => {
    const v = 'a"b c/d';
    expect(echoForms(v)).toContain(v);
    expect(mask([v]).redact(`<${v}>`)).toBe('<***>');
  });

  it('a single-line value JSON-escaped twice is hidden', () => {
    const v = 'pa"ss/wd';
    const text = JSON.stringify(JSON.stringify({ k: v }));
    expect(mask([v]).redact(text)).toBe(JSON.stringify(JSON.stringify({ k: '***' })));
  });

  it('a multi-byte secret of 3 characters (6 bytes) is hidden in base64', () => {
    const v = 'ééé';
    expect(mask([v]).redact(Buffer.from(v).toString('base64'))).toBe('***');
  });

  it('no form is empty (an empty form would mask between every character)', () => {
    expect(echoForms('')).toEqual([]);
    expect(echoForms('abcd').every((f) => f !== '')).toBe(true);
  });
});

describe('Redactor: multi-line secrets', () => {
  const line1 = 'MIIEvQIBADANBgkq'; // 16 characters: secret on its own
  const line2 = 'hkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ';
  const KEY = `-----BEGIN KEY-----\n${line1}\n${line2}\n-----END KEY-----\n`;

  it('a multi-line secret echoed line by line is hidden, each line on its own', () => {
    const r = mask([KEY]);
    expect(r.redact(`got ${line2} and`)).toBe('got *** and');
    expect(r.redact(`first: ${line1}`)).toBe('first: ***');
  });

  it('a multi-line secret cut short still hides its whole lines', () => {
    const cut = KEY.slice(0, KEY.indexOf(line2) + 10);
    const out = mask([KEY]).redact(`error near: ${cut}`);
    expect(out).not.toContain(line1);
  });

  it('lines of a CRLF secret are hidden however the echo ends its lines', () => {
    const crlf = `${line1}\r\n${line2}\r\n`;
    expect(mask([crlf]).redact(`${line1}\n${line2}\n`)).toBe('***\n***\n');
    expect(mask([crlf]).redact(`${line2}`)).toBe('***');
  });

  it('a line under 16 characters is not secret on its own (a header line must not shred text)', () => {
    const short = 'abcdefghijklmno'; // 15
    const r = mask([`${short}\r\n${line2}`]);
    expect(r.redact(`${short}\r\nzz`)).toBe(`${short}\r\nzz`);
    expect(r.redact(`-${short}-`)).toBe(`-${short}-`);
  });

  it('a line with surrounding blanks is hidden without them', () => {
    const r = mask([`  ${line1}  \n${line2}`]);
    expect(r.redact(`[${line1}]`)).toBe('[***]');
  });
});

describe('Redactor: values and labels', () => {
  it('an empty value is ignored and the same value is kept once per label', () => {
    const r = mask([]);
    r.add('');
    expect(r.size).toBe(0);
    expect(r.redact('')).toBe('');
    r.add('secret-1');
    r.add('secret-1');
    expect(r.size).toBe(1);
    r.add('secret-1', 'A');
    expect(r.size).toBe(2);
  });

  it('a redactor made without values hides nothing until one is added', () => {
    const r = new Redactor({ mask: '***' });
    expect(r.size).toBe(0);
    expect(r.redact('Stryker was here')).toBe('Stryker was here');
  });

  it('a short value containing another short value is removed whole, in any order of adding', () => {
    expect(mask(['b', 'a-b']).redact('a-b')).toBe('***');
    expect(mask(['a-b', 'b']).redact('a-b b')).toBe('*** ***');
  });

  it('a value added after redacting is hidden from then on', () => {
    const r = mask(['first-secret']);
    expect(r.redact('first-secret second-secret')).toBe('*** second-secret');
    r.add('second-secret');
    expect(r.redact('first-secret second-secret')).toBe('*** ***');
  });

  it('overlapping values of equal length are removed the same way whatever order they were added in', () => {
    expect(mask(['abcx', 'xdef']).redact('abcxdef')).toBe('***def');
    expect(mask(['xdef', 'abcx']).redact('abcxdef')).toBe('***def');
  });

  it('a longer value is removed before a shorter one it contains, in any order of adding', () => {
    expect(mask(['abcdefgh', 'abcd']).redact('abcdefgh')).toBe('***');
    expect(mask(['abcd', 'abcdefgh']).redact('abcdefgh')).toBe('***');
  });

  it('labels are sorted, and a value without a label names nothing', () => {
    const r = mask(['unlabelled-value']);
    r.add('zeta-secret-value', 'Z');
    r.add('alpha-secret-value', 'A');
    expect(r.labelsIn('unlabelled-value')).toEqual([]);
    expect(r.labelsIn('zeta-secret-value alpha-secret-value unlabelled-value')).toEqual(['A', 'Z']);
  });
});
