// The apply lease's record (src/ops/lease/lease-record.ts): a custom alert profile POSTUREOPS_LEASE_<n>
// whose one template holds owner, holder, stamp and state. What it reads back decides whose the lease is,
// so anything else (an edit, a foreign id, a broken text) reads as unreadable, never as a lease.

import { describe, expect, it } from 'vitest';
import { baseOf, createLeaseRequest, isLeaseRecord, LEASE_ID_PREFIX, LEASE_LIST_PATH, type LeaseData, leaseId, leaseRecords, profilesOf, writeLeaseRequest } from '../../src/ops/lease/lease-record.js';
import type { RequestContext } from '../../src/kinds/types.js';

const ctx: RequestContext = { account: 'prod', orgAccess: false, resolve: () => '' };
const DATA: LeaseData = { owner: 'owner-a', holder: 'run A', stamp: 1_790_000_000_000, state: 'held' };
const BASE = { alertProfileId: 'SVC_BASE', alerts: [{ name: 'Default' }] };
const TAG = 'postureops-apply-lease/2 ';

/** A lease profile whose template description is `description` (other template members as the tool writes them). */
function profile(id: string, description: unknown, extra: Record<string, unknown> = {}) {
  return { alertProfileId: id, extends: 'SVC_BASE', alerts: [{ name: 'Lease', eventName: 'e', subject: 's', description, ...extra }] };
}

function written(generation: number, data: LeaseData = DATA) {
  return createLeaseRequest(generation, data, { data: [BASE] }, ctx).body as { alertProfileId: string; alerts: { description: string }[] };
}

describe('the lease record', () => {
  it('is the profile POSTUREOPS_LEASE_<generation>, listed with the alert profiles', () => {
    expect(LEASE_ID_PREFIX).toBe('POSTUREOPS_LEASE_');
    expect(leaseId(7)).toBe('POSTUREOPS_LEASE_7');
    expect(LEASE_LIST_PATH).toBe('/api/v2/AlertProfiles');
  });

  it('is created by a POST of the profile extending a predefined profile, with one template that holds the data', () => {
    expect(createLeaseRequest(3, DATA, { data: [BASE] }, ctx)).toEqual({
      method: 'POST',
      path: '/api/v2/AlertProfiles',
      account: 'prod',
      orgAccess: false,
      body: {
        alertProfileId: 'POSTUREOPS_LEASE_3',
        extends: 'SVC_BASE',
        alerts: [
          {
            name: 'Lease',
            eventName: 'postureops apply lease',
            subject: 'postureops apply lease: do not edit (postureops unlock frees it)',
            description: `${TAG}{"owner":"owner-a","holder":"run A","stamp":1790000000000,"state":"held"}`,
          },
        ],
      },
    });
  });

  it('cannot be created in an account without a predefined profile with templates to extend', () => {
    expect(() => createLeaseRequest(1, DATA, { data: [{ alertProfileId: 'SVC_EMPTY', alerts: [] }] }, ctx)).toThrow(
      'the account has no predefined alert profile with templates for the apply lease to extend',
    );
  });

  it('is renewed, released and freed by a PATCH of its template by its id, never deleted', () => {
    const renewed = { ...DATA, stamp: DATA.stamp + 60_000 };
    expect(writeLeaseRequest(2, renewed, ctx)).toEqual({
      method: 'PATCH',
      path: '/api/v2/AlertProfiles/POSTUREOPS_LEASE_2',
      account: 'prod',
      orgAccess: false,
      body: { alerts: written(2, renewed).alerts },
    });
  });

  it('holds no brace but its outer two in the template text (the service reads {{...}} as a placeholder), and reads back what was written', () => {
    const data: LeaseData = { owner: 'owner-{a}', holder: 'run {{x}} }{', stamp: 5, state: 'released' };
    const text = written(1, data).alerts[0].description;
    expect(text).toBe(`${TAG}{"owner":"owner-\\u007ba\\u007d","holder":"run \\u007b\\u007bx\\u007d\\u007d \\u007d\\u007b","stamp":5,"state":"released"}`);
    expect(leaseRecords([written(1, data)])).toEqual([{ id: 'POSTUREOPS_LEASE_1', generation: 1, data }]);
  });
});

describe('reading the lease records of a list answer', () => {
  it('reads them bare or wrapped in data, in generation order by number, and nothing else of the list', () => {
    // An id that is not text is no record, even a list whose text would be a lease id.
    const list = [BASE, written(10), 'not a profile', null, { alertProfileId: 7 }, { ...written(3), alertProfileId: ['POSTUREOPS_LEASE_3'] }, written(9), written(2), { alertProfileId: 'MY_PROFILE', alerts: [] }];
    const expected = [2, 9, 10].map((g) => ({ id: `POSTUREOPS_LEASE_${g}`, generation: g, data: DATA }));
    expect(leaseRecords(list)).toEqual(expected);
    expect(leaseRecords({ data: list })).toEqual(expected);
    expect(leaseRecords({ data: 'no list' })).toEqual([]);
    expect(leaseRecords(undefined)).toEqual([]);
  });

  it.each([
    ['generation 0', 'POSTUREOPS_LEASE_0'],
    ['a leading zero', 'POSTUREOPS_LEASE_01'],
    ['more than 15 digits', 'POSTUREOPS_LEASE_1234567890123456'],
    ['something after the number', 'POSTUREOPS_LEASE_1X'],
    ['something before the prefix', 'XPOSTUREOPS_LEASE_1'],
    ['no number', 'POSTUREOPS_LEASE_'],
  ])('an id with %s is not a lease record', (_, id) => {
    expect(leaseRecords([{ ...written(1), alertProfileId: id }])).toEqual([]);
  });

  it('a generation of 15 digits is one', () => {
    expect(leaseRecords([{ ...written(1), alertProfileId: 'POSTUREOPS_LEASE_123456789012345' }])).toEqual([
      { id: 'POSTUREOPS_LEASE_123456789012345', generation: 123456789012345, data: DATA },
    ]);
  });

  const good = written(1).alerts[0].description;
  it.each([
    ['no templates', { alertProfileId: 'POSTUREOPS_LEASE_1', alerts: [] }],
    ['templates that are not a list', { alertProfileId: 'POSTUREOPS_LEASE_1', alerts: { name: 'Lease', description: good } }],
    ['a second template', { alertProfileId: 'POSTUREOPS_LEASE_1', alerts: [...written(1).alerts, ...written(1).alerts] }],
    ['a template that is not an object', { alertProfileId: 'POSTUREOPS_LEASE_1', alerts: [good] }],
    ['a template of another name', profile('POSTUREOPS_LEASE_1', good, { name: 'Renamed' })],
    ['a description that is not text', profile('POSTUREOPS_LEASE_1', 5)],
    ['a description without the tag', profile('POSTUREOPS_LEASE_1', good.slice(TAG.length))],
    ['a description edited by hand', profile('POSTUREOPS_LEASE_1', `${TAG}{"owner":`)],
    ['a list, not an object', profile('POSTUREOPS_LEASE_1', `${TAG}["owner-a","run A",5]`)],
    ['null', profile('POSTUREOPS_LEASE_1', `${TAG}null`)],
    ['no owner', profile('POSTUREOPS_LEASE_1', `${TAG}{"holder":"run A","stamp":5}`)],
    ['an empty owner', profile('POSTUREOPS_LEASE_1', `${TAG}{"owner":"","holder":"run A","stamp":5}`)],
    ['a holder that is not text', profile('POSTUREOPS_LEASE_1', `${TAG}{"owner":"o","holder":5,"stamp":5}`)],
    ['a stamp that is not a number', profile('POSTUREOPS_LEASE_1', `${TAG}{"owner":"o","holder":"h","stamp":"5"}`)],
    ['a stamp that is not finite', profile('POSTUREOPS_LEASE_1', `${TAG}{"owner":"o","holder":"h","stamp":1e999,"state":"held"}`)],
    ['no state', profile('POSTUREOPS_LEASE_1', `${TAG}{"owner":"o","holder":"h","stamp":5}`)],
    ['a state of no meaning', profile('POSTUREOPS_LEASE_1', `${TAG}{"owner":"o","holder":"h","stamp":5,"state":"free"}`)],
  ])('a record with %s is unreadable: a lease of nobody (unlock frees it)', (_, p) => {
    expect(leaseRecords([p])).toEqual([{ id: 'POSTUREOPS_LEASE_1', generation: 1 }]);
  });

  it('an empty holder is readable (shown as an unknown holder)', () => {
    expect(leaseRecords([profile('POSTUREOPS_LEASE_1', `${TAG}{"owner":"o","holder":"","stamp":5,"state":"freed"}`)])).toEqual([
      { id: 'POSTUREOPS_LEASE_1', generation: 1, data: { owner: 'o', holder: '', stamp: 5, state: 'freed' } },
    ]);
  });
});

describe('the base a lease record extends', () => {
  it('is the first, in code-unit order, of the predefined profiles that have templates', () => {
    const profiles = [
      { alertProfileId: 'SVC_B', alerts: [{ name: 't' }] },
      { alertProfileId: 'SVC_A', alerts: [{ name: 't' }] },
      { alertProfileId: 'SVC_0', alerts: [] },
      { alertProfileId: 'SVC_1' },
      { alertProfileId: 'MINE', extends: 'SVC_A', alerts: [{ name: 't' }] },
    ];
    expect(baseOf(profiles)).toBe('SVC_A');
    expect(baseOf({ data: profiles })).toBe('SVC_A');
    expect(baseOf([{ alertProfileId: 'SVC_0', alerts: [] }, 'junk', null, { alerts: [1] }])).toBeUndefined();
  });

  it("takes the vendor prefix from the account itself (LW_ on the real service), a profile extending '' or a non-text counting as a root", () => {
    const profiles = [
      { alertProfileId: 'LW_ROOT', alerts: [{ name: 't' }] },
      { alertProfileId: 'LW_ROOT_CHILD', extends: 'LW_ROOT', alerts: [{ name: 't' }] },
      { alertProfileId: 'MINE', extends: '', alerts: [] },
      { alertProfileId: 'ODD', extends: 5, alerts: [] },
      { alertProfileId: 'SVC_DECOY', alerts: [{ name: 't' }] },
    ];
    expect(baseOf(profiles)).toBe('LW_ROOT');
  });

  it('profilesOf: a list bare or in data, anything else no profiles', () => {
    expect(profilesOf([1])).toEqual([1]);
    expect(profilesOf({ data: [2] })).toEqual([2]);
    expect(profilesOf({ items: [3] })).toEqual([]);
    expect(profilesOf(null)).toEqual([]);
  });
});

describe('what the tool owns', () => {
  it('a lease profile and its template, never a profile, template or resource of the user', () => {
    const live = (kind: string, name: string, parent?: string) => ({ kind, account: 'prod', name, id: name, spec: {}, ...(parent ? { parent } : {}) });
    expect(isLeaseRecord(live('AlertProfile', 'POSTUREOPS_LEASE_4'))).toBe(true);
    expect(isLeaseRecord(live('AlertTemplate', 'POSTUREOPS_LEASE_4.Lease', 'POSTUREOPS_LEASE_4'))).toBe(true);
    expect(isLeaseRecord(live('AlertProfile', 'MY_PROFILE'))).toBe(false);
    expect(isLeaseRecord(live('AlertTemplate', 'MY_PROFILE.Lease', 'MY_PROFILE'))).toBe(false);
    expect(isLeaseRecord(live('AlertChannel', 'POSTUREOPS_LEASE_4'))).toBe(false);
    expect(isLeaseRecord(live('AlertProfile', 'POSTUREOPS_LEASE_0'))).toBe(false);
  });
});
