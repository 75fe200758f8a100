// An export always validates: members the schema refuses are left out with a warning naming the
// resource and the member; a document that cannot validate without them is left out whole.

import { beforeAll, describe, expect, it } from 'vitest';
import { documentChecker } from '../../src/config/document-check.js';
import { type DocumentCheck, fitDocument } from '../../src/ops/export/export-fit.js';

let check: DocumentCheck;
beforeAll(async () => {
  check = await documentChecker();
});

const doc = (kind: string, spec: Record<string, unknown>) => ({ kind, name: 'n', account: 'prod', spec: spec as never });

describe('fitDocument', () => {
  it('keeps a document that validates as it is, unknown types included', () => {
    const spec = { type: 'SomeNewType', data: { anything: [1, { deep: true }] } };
    const fitted = fitDocument(doc('CloudAccount', spec), check);
    expect(fitted.spec).toEqual(spec);
    // Where the schema warns about the new type, the export says it wrote it as read; nothing is left out.
    expect(fitted.diagnostics.filter((d) => d.code !== 'export-value-kept')).toEqual([]);
    expect(fitted.diagnostics.every((d) => d.severity === 'warning' && d.field === '/spec/type')).toBe(true);
  });

  it('leaves out a member a typo away from one the known type has, naming it; carries one far from all with a warning', () => {
    const fitted = fitDocument(
      doc('AlertChannel', { type: 'IbmQradar', data: { qradarHostUrl: 'https://q.example.com', qradarHostPrt: 443, qradarCommType: 'HTTPS', extra: { a: 1 } } }),
      check,
    );
    expect(fitted.spec).toEqual({ type: 'IbmQradar', data: { qradarHostUrl: 'https://q.example.com', qradarCommType: 'HTTPS', extra: { a: 1 } } });
    expect(fitted.diagnostics.map((d) => [d.severity, d.code, d.field])).toEqual([
      ['warning', 'export-member-left-out', '/spec/data/qradarHostPrt'],
      ['warning', 'export-value-kept', '/spec/data/extra'],
    ]);
    expect(fitted.diagnostics[0].message).toContain('AlertChannel "n" in account prod: spec/data/qradarHostPrt');
    expect(fitted.diagnostics[0].message).toContain('did you mean `qradarHostPort`?');
  });

  it('leaves out a document whose required member is unusable, with the reason', () => {
    // (A URL of another scheme would only be a format warning: the format is a guess, issue 19.)
    const fitted = fitDocument(doc('AlertChannel', { type: 'IbmQradar', data: { qradarHostUrl: 42, qradarHostPort: 443, qradarCommType: 'HTTPS' } }), check);
    expect(fitted.spec).toBeUndefined();
    expect(fitted.reason).toContain('qradarHostUrl');
    expect(fitted.diagnostics.map((d) => d.code)).toEqual(['export-member-left-out', 'export-resource-left-out']);
  });

  it('writes a value the schema only warns about as read, with a warning naming the record and the member', () => {
    // The schema's format check on the URL, as a warning (the schemas branch makes it one).
    const warns: DocumentCheck = (d) => check(d).map((p) => (p.field === '/spec/data/qradarHostUrl' ? { ...p, severity: 'warning' as const } : p));
    const spec = { type: 'IbmQradar', data: { qradarHostUrl: 'q.example.com:443', qradarHostPort: 443, qradarCommType: 'HTTPS' } };
    expect(check(doc('AlertChannel', spec)).map((p) => p.field)).toEqual(['/spec/data/qradarHostUrl']);
    const fitted = fitDocument(doc('AlertChannel', spec), warns);
    expect(fitted.spec).toEqual(spec);
    expect(fitted.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'export-value-kept',
        field: '/spec/data/qradarHostUrl',
        message: expect.stringMatching(/^AlertChannel "n" in account prod: spec\/data\/qradarHostUrl is written as the service holds it, though `spec.data.qradarHostUrl`/),
      }),
    ]);
  });
});
