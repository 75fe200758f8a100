// The client's credential redactor and the service message it keeps, called in-process (the e2e
// tests that spawn dist/ cannot notice a change here).
import { describe, expect, it } from 'vitest';
import { credentialRedactor, serviceMessage } from '../../src/api/redact.js';

const SECRET = 'sk-live-0123456789';
const r = () => credentialRedactor([SECRET, 'K3y9', 'abc']);

describe('credentialRedactor', () => {
  it('a 4-character credential is hidden even inside a word, shown as [redacted]', () => {
    expect(r().redact('idK3y9x')).toBe('id[redacted]x');
  });

  it('a value under 4 characters is not a credential and is never hidden', () => {
    expect(r().redact('abc abcd')).toBe('abc abcd');
  });

  it('the secret is hidden in its URL-encoded echo', () => {
    expect(r().redact(`?s=${encodeURIComponent(SECRET + '/x')}`)).not.toContain('0123456789');
  });
});

describe('serviceMessage', () => {
  it('an empty or blank body says nothing', () => {
    expect(serviceMessage(r(), '')).toBeUndefined();
    expect(serviceMessage(r(), ' \n\t ')).toBeUndefined();
  });

  it('a body that is not JSON: trimmed, blanks collapsed, the secret hidden', () => {
    expect(serviceMessage(r(), `  bad\n\n key   ${SECRET}  `)).toBe('bad key [redacted]');
  });

  it('a body that is not JSON is cut to 200 characters, and 200 are kept whole', () => {
    expect(serviceMessage(r(), 'x'.repeat(200))).toBe('x'.repeat(200));
    expect(serviceMessage(r(), 'y'.repeat(201))).toBe('y'.repeat(200));
  });

  it('a secret straddling the cut is hidden before cutting, so no part of it is left', () => {
    const out = serviceMessage(r(), 'z'.repeat(195) + SECRET)!;
    expect(out).toBe('z'.repeat(195) + '[reda');
    expect(out).not.toContain('sk-l');
  });

  it("a JSON body's message: trimmed, the secret hidden, cut to 1000 characters", () => {
    expect(serviceMessage(r(), JSON.stringify({ message: `  denied for ${SECRET} ` }))).toBe('denied for [redacted]');
    expect(serviceMessage(r(), JSON.stringify({ message: 'm'.repeat(1000) }))).toBe('m'.repeat(1000));
    expect(serviceMessage(r(), JSON.stringify({ message: 'n'.repeat(1001) }))).toBe('n'.repeat(1000));
  });

  it('a JSON body without a usable message says nothing (and never throws)', () => {
    for (const body of ['null', '"just a string"', '42', '[]', '{"error":"x"}', '{"message":7}', '{"message":"   "}']) {
      expect(serviceMessage(r(), body), body).toBeUndefined();
    }
  });

  it('a JSON message keeps its own line breaks (only text bodies are flattened)', () => {
    expect(serviceMessage(r(), JSON.stringify({ message: 'a\n b' }))).toBe('a\n b');
  });
});
