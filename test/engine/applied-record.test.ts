// The record of an account's last successful apply: read back exactly, an edited one unreadable
// (never trusted), written as a PATCH when it exists and as a create extending a predefined profile
// otherwise, and owned (hidden) with its template.

import { describe, expect, it } from 'vitest';
import { APPLIED_ID, isAppliedRecord, readAppliedRecord, writeAppliedRequest } from '../../src/ops/apply/applied-record.js';
import type { RequestContext } from '../../src/kinds/types.js';

const ctx: RequestContext = {
  account: 'prod',
  orgAccess: false,
  resolve: () => {
    throw new Error('the record refers to nothing');
  },
};
const commit = 'ab'.repeat(20);
const predefined = { alertProfileId: 'SVC_CSA_DEFAULT', alerts: [{ name: 'x', description: 'y' }] };

describe('the applied record', () => {
  it('writes a record that reads back as written; PATCH when it exists', () => {
    const create = writeAppliedRequest({ commit, stamp: 1_700_000_000_000 }, { data: [predefined] }, ctx);
    expect(create.method).toBe('POST');
    const body = create.body as { alertProfileId: string; extends: string; alerts: unknown[] };
    expect(body).toMatchObject({ alertProfileId: APPLIED_ID, extends: 'SVC_CSA_DEFAULT' });
    expect(JSON.stringify(body)).not.toMatch(/\{\{/);
    const listed = { data: [predefined, { alertProfileId: APPLIED_ID, extends: 'SVC_CSA_DEFAULT', alerts: body.alerts }] };
    expect(readAppliedRecord(listed)).toEqual({ commit, stamp: 1_700_000_000_000 });
    expect(writeAppliedRequest({ commit, stamp: 1 }, listed, ctx).method).toBe('PATCH');
  });

  it('absent is undefined; an edited record is unreadable, not a commit', () => {
    expect(readAppliedRecord({ data: [predefined] })).toBeUndefined();
    const edited = (description: string) => ({ data: [{ alertProfileId: APPLIED_ID, alerts: [{ name: 'Applied', description }] }] });
    expect(readAppliedRecord(edited(`postureops-applied/1 commit=${commit} stamp=1 extra`))).toBe('unreadable');
    expect(readAppliedRecord(edited('postureops-applied/1 commit=HEAD stamp=1'))).toBe('unreadable');
    expect(readAppliedRecord(edited(`postureops-applied/1 commit=${commit} stamp=1`))).toEqual({ commit, stamp: 1 });
  });

  it('owns the profile and its template, nothing else', () => {
    const live = (kind: string, name: string, parent?: string) => ({ kind, account: 'prod', name, id: name, spec: {}, ...(parent ? { parent } : {}) });
    expect(isAppliedRecord(live('AlertProfile', APPLIED_ID))).toBe(true);
    expect(isAppliedRecord(live('AlertTemplate', 'Applied', APPLIED_ID))).toBe(true);
    expect(isAppliedRecord(live('AlertProfile', 'MINE'))).toBe(false);
    expect(isAppliedRecord(live('AlertTemplate', 'Applied', 'MINE'))).toBe(false);
  });
});
