import { describe, expect, it } from 'vitest';
import { bucketOf } from '../../src/api/buckets.js';
import { apiPath } from '../../src/kinds/common.js';
import { AlertRule } from '../../src/kinds/alert-rule/index.js';
import type { JsonObject } from '../../src/model/json.js';
import type { LiveResource } from '../../src/model/resource.js';
import { desiredOf, doc, fetchCtx, requestCtx } from './helpers.js';

const LIST = '/api/v2/AlertRules';
const CHANNEL_IDS: Record<string, string> = { PROD_AAA: 'ops-slack', PROD_BBB: 'pager' };

/** What the engine does through `references`: live channel ids → names. */
function namesForIds(live: LiveResource): JsonObject {
  return { ...live.spec, channels: (live.spec.channels as string[]).map((id) => CHANNEL_IDS[id]).sort() };
}

/** An alert rule as the service answers it: lowercase filters, reordered lists, response-only members. */
function ruleRecord(filters: JsonObject, intgGuidList: string[], mcGuid = 'c3a0d7e2-5b1f-4c9a-8e6d-2f4b7a9c1e05'): JsonObject {
  return {
    mcGuid,
    type: 'Event',
    intgGuidList,
    filters: { createdOrUpdatedBy: 'admin@example.com', createdOrUpdatedTime: '1763751600000', ...filters },
  };
}

const CASES: { title: string; file: JsonObject; record: JsonObject; canonical: JsonObject }[] = [
  {
    title: 'all members, live filters lowercase and reordered',
    file: {
      channels: ['pager', 'ops-slack'],
      severity: ['high', 1, 'critical'],
      eventCategory: ['Compliance', 'Cloud'],
      resourceGroups: ['rg-b', 'rg-a'],
      description: 'Critical cloud findings',
      enabled: 0,
    },
    record: ruleRecord(
      { name: 'crit', description: 'Critical cloud findings', enabled: 0, resourcegroups: ['rg-a', 'rg-b'], eventcategory: ['Cloud', 'Compliance'], severity: [2, 1] },
      ['PROD_BBB', 'PROD_AAA'],
    ),
    canonical: {
      channels: ['ops-slack', 'pager'],
      severity: [1, 2],
      eventCategory: ['Cloud', 'Compliance'],
      resourceGroups: ['rg-a', 'rg-b'],
      description: 'Critical cloud findings',
      enabled: false,
    },
  },
  {
    title: 'defaults filled; empty live lists and a category spelled differently',
    file: { channels: ['ops-slack'], severity: ['info'], eventCategory: ['K8sActivity'] },
    record: ruleRecord({ name: 'crit', description: '', enabled: 1, resourcegroups: [], eventcategory: ['k8sactivity'], severity: [5] }, ['PROD_AAA']),
    canonical: { channels: ['ops-slack'], severity: [5], eventCategory: ['K8sActivity'], resourceGroups: [], description: '', enabled: true },
  },
];

describe('AlertRule: desired and live agree', () => {
  it.each(CASES)('$title', async (c) => {
    const [desired] = desiredOf(AlertRule, doc('AlertRule', 'crit', c.file));
    const ctx = fetchCtx({ [LIST]: { data: [c.record] } });
    const [live] = await AlertRule.list(ctx);
    expect(ctx.calls).toEqual([LIST]);
    expect(live).toMatchObject({ kind: 'AlertRule', name: 'crit', id: 'c3a0d7e2-5b1f-4c9a-8e6d-2f4b7a9c1e05', account: 'prod' });
    expect(desired.spec).toEqual(c.canonical);
    expect(namesForIds(live)).toEqual(c.canonical);

    const exported = (AlertRule.export?.toDocument({ ...live, spec: namesForIds(live) }, []) ?? null);
    const [again] = desiredOf(AlertRule, doc('AlertRule', exported!.name, exported!.spec));
    expect(again.spec).toEqual(c.canonical);
  });

  it('exports severities as names and leaves defaults out', () => {
    const live: LiveResource = {
      kind: 'AlertRule',
      account: 'prod',
      name: 'r',
      id: 'g',
      spec: { channels: ['ops-slack'], severity: [1, 3], eventCategory: [], resourceGroups: [], description: '', enabled: true },
    };
    expect((AlertRule.export?.toDocument(live, []) ?? null)).toEqual({ kind: 'AlertRule', name: 'r', spec: { channels: ['ops-slack'], severity: ['critical', 'medium'] } });
  });

  it('moves env references with the items of a sorted list', () => {
    const [r] = desiredOf(
      AlertRule,
      doc('AlertRule', 'r', { channels: ['zeta', 'alpha', 'zeta'], severity: [1] }, { envRefs: { '/channels/0': '${env:CH}', '/description': '${env:D}' } }),
    );
    expect(r.spec.channels).toEqual(['alpha', 'zeta']);
    expect(r.envRefs).toEqual({ '/channels/1': '${env:CH}', '/description': '${env:D}' });
  });

  it('reports what the schema cannot: severities from env, and values that are no severity', () => {
    const { diagnostics } = AlertRule.fromDocument(
      doc('AlertRule', 'r', { channels: ['a'], severity: ['high', 'urgent'] }, { envRefs: { '/severity/0': '${env:SEV}' }, positions: { '/severity/1': { file: 'f.yaml', line: 7, column: 5 } } }),
    );
    expect(diagnostics).toMatchObject([
      { code: 'env-not-supported', field: '/spec/severity/0' },
      { code: 'invalid-severity', field: '/spec/severity/1', file: 'f.yaml', line: 7, column: 5 },
    ]);
  });

  it('lists rules whose filters use camelCase too, and declares references and sets', async () => {
    const rec = { mcGuid: 'm', type: 'Event', intgGuidList: ['PROD_AAA'], filters: { name: 'n', enabled: 1, resourceGroups: ['x'], eventCategory: ['User'], severity: [3] } };
    const [live] = await AlertRule.list(fetchCtx({ [LIST]: [rec] }));
    expect(live.spec).toMatchObject({ resourceGroups: ['x'], eventCategory: ['User'], severity: [3] });
    expect((AlertRule.references ?? [])).toEqual([
      { kind: 'AlertChannel', pointer: '/channels' },
      { kind: 'ResourceGroup', pointer: '/resourceGroups' },
    ]);
    expect((AlertRule.compare?.setPointers?.(live.spec) ?? [])).toEqual(['/channels', '/severity', '/eventCategory', '/resourceGroups', '/category', '/subCategory', '/source']);
    expect(AlertRule.collection).toBe('AlertRules');
    expect(bucketOf('GET', apiPath(AlertRule.collection))).toBe('GET AlertRules');
  });
});

describe('AlertRule: requests', () => {
  const [desired] = desiredOf(AlertRule, doc('AlertRule', 'crit', { channels: ['pager', 'ops-slack'], severity: ['critical'] }));
  const ctx = requestCtx({ 'AlertChannel/ops-slack': 'PROD_AAA', 'AlertChannel/pager': 'PROD_NEW' });

  it('creates with channel names resolved to ids and camelCase filters, never null lists', () => {
    expect(AlertRule.createRequest(desired, [], ctx)).toEqual({
      method: 'POST',
      path: '/api/v2/AlertRules',
      account: 'prod',
      orgAccess: false,
      body: {
        type: 'Event',
        intgGuidList: ['PROD_AAA', 'PROD_NEW'],
        filters: { name: 'crit', description: '', enabled: 1, resourceGroups: [], eventCategory: [], severity: [1] },
      },
    });
    expect(AlertRule.createdId({ data: { mcGuid: 'm-1' } }, desired)).toBe('m-1');
  });

  it('patches the whole filters object, the channel list, or both in one request', () => {
    const path = '/api/v2/AlertRules/m%201';
    expect(AlertRule.updateRequests('m 1', desired, ['severity'], ctx)).toEqual([
      {
        method: 'PATCH',
        path,
        account: 'prod',
        orgAccess: false,
        body: { filters: { name: 'crit', description: '', enabled: 1, resourceGroups: [], eventCategory: [], severity: [1] } },
      },
    ]);
    expect(AlertRule.updateRequests('m 1', desired, ['channels'], ctx)).toEqual([
      { method: 'PATCH', path, account: 'prod', orgAccess: false, body: { intgGuidList: ['PROD_AAA', 'PROD_NEW'] } },
    ]);
    const both = AlertRule.updateRequests('m 1', desired, ['channels', 'enabled'], requestCtx({ 'AlertChannel/ops-slack': 'A', 'AlertChannel/pager': 'B' }, { orgAccess: true }));
    expect(both).toHaveLength(1);
    expect(both[0]).toMatchObject({ account: undefined, orgAccess: true, body: { intgGuidList: ['A', 'B'], filters: { enabled: 1 } } });
    expect(AlertRule.updateRequests('m 1', desired, [], ctx)).toEqual([]);
  });

  it('renames in place through filters.name (a PATCH replaces filters whole)', () => {
    expect(AlertRule.rename?.inPlace).toBe(true);
    expect(AlertRule.updateRequests('m 1', desired, [], ctx, { rename: true })).toEqual([
      {
        method: 'PATCH',
        path: '/api/v2/AlertRules/m%201',
        account: 'prod',
        orgAccess: false,
        body: { filters: { name: 'crit', description: '', enabled: 1, resourceGroups: [], eventCategory: [], severity: [1] } },
      },
    ]);
  });

  it('deletes by mcGuid', () => {
    expect(AlertRule.deleteRequest('m-1', ctx)).toEqual({ method: 'DELETE', path: '/api/v2/AlertRules/m-1', account: 'prod', orgAccess: false });
  });

  it('reads the newer spellings: category, subCategory, sources, a top-level name, categories beyond the eight', async () => {
    const rec = {
      mcGuid: 'm2',
      type: 'Event',
      name: 'top-level-name',
      intgGuidList: [],
      filters: { enabled: 1, eventcategory: ['Identity', 'Cloud'], severity: [1], category: ['Policy'], subCategory: ['Compliance'], sources: ['AWS', 'Azure'] },
    };
    const [live] = await AlertRule.list(fetchCtx({ [LIST]: [rec] }));
    expect(live.name).toBe('top-level-name');
    expect(live.spec).toMatchObject({ eventCategory: ['Cloud', 'Identity'], category: ['Policy'], subCategory: ['Compliance'], source: ['AWS', 'Azure'] });
    // Export writes what it read.
    expect((AlertRule.export?.toDocument(live, []) ?? null)?.spec).toMatchObject({ category: ['Policy'], subCategory: ['Compliance'], source: ['AWS', 'Azure'] });
  });

  it('sends the newer lists only where the rule has them, and leaves them out of a file that does not declare them', () => {
    const [plain] = desiredOf(AlertRule, doc('AlertRule', 'r', { channels: ['ops-slack'], severity: ['high'] }));
    expect(plain.spec).not.toHaveProperty('category');
    const [declared] = desiredOf(AlertRule, doc('AlertRule', 'r', { channels: ['ops-slack'], severity: ['high'], source: ['K8s', 'AWS'], category: null }));
    expect(declared.spec).toMatchObject({ source: ['AWS', 'K8s'], category: null });
    const req = AlertRule.updateRequests('m', { ...declared, spec: { ...declared.spec, category: ['Policy'] } }, ['source'], requestCtx({ 'ops-slack': 'PROD_AAA' }));
    expect((req[0].body as JsonObject).filters).toMatchObject({ source: ['AWS', 'K8s'], category: ['Policy'] });
    expect(AlertRule.compare?.openMembers?.(plain.spec, plain.spec)).toEqual(['']);
  });
});
