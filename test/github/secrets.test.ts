// What the Action registers with the runner (`::add-mask::`): its credentials, and each value the
// loader read, in every form it may be echoed in.
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_VARIABLES, maskCredentials, maskForms, registerValues } from '../../src/github/secrets.js';

describe('the values the Action registers with the runner', () => {
  it('masks its own credentials whatever the configuration says', () => {
    expect(CREDENTIAL_VARIABLES).toEqual(['SVC_API_SECRET', 'SVC_API_KEY_ID', 'GITHUB_TOKEN', 'INPUT_GITHUB-TOKEN', 'POSTUREOPS_PLAN_KEY']);
  });

  it('registers a value, its escaped and encoded forms, and each line of four or more characters, trimmed', () => {
    const forms = maskForms('top/se"cret\r\n  second-line  \r\nabc\n');
    expect(forms).toContain('top/se"cret\r\n  second-line  \r\nabc\n');
    expect(forms).toContain('top/se\\"cret\\r\\n  second-line  \\r\\nabc\\n');
    expect(forms).toContain('top/se"cret');
    expect(forms).toContain('second-line');
    // A line shorter than four characters would shred every log line it appears in.
    expect(forms).not.toContain('abc');
    expect(forms).not.toContain('');
    expect(forms.some((f) => f.endsWith('\r') && !f.includes('\n'))).toBe(false);
    expect(maskForms('abcd')).toContain('abcd');
    // Four characters once trimmed: spaces around a short line do not make it long enough.
    expect(maskForms('first-line\n  ab  ')).not.toContain('ab');
    expect(maskForms('')).toEqual([]);
    expect(maskForms('  abcd  ')).toContain('abcd');
  });

  it('registers every form of every value read, and nothing for an empty one', () => {
    const set: string[] = [];
    registerValues(['', 'value-one', 'two\nlines-here'], (v) => set.push(v));
    expect(set).toEqual([...maskForms('value-one'), ...maskForms('two\nlines-here')]);
    expect(set).not.toContain('');
    expect(set).toContain('lines-here');
  });

  it('registers the credentials that are set and names them for the guard', () => {
    const set: string[] = [];
    const names = maskCredentials({ SVC_API_SECRET: 's3cret-value', SVC_API_KEY_ID: '', GITHUB_TOKEN: 'ghs_token-value', OTHER: 'not-a-credential' }, (v) => set.push(v));
    expect(names).toEqual(['SVC_API_SECRET', 'GITHUB_TOKEN']);
    expect(set).toEqual([...maskForms('s3cret-value'), ...maskForms('ghs_token-value')]);
    expect(set).not.toContain('not-a-credential');
  });
});
