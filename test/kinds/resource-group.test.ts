// ResourceGroup and ReportRule: the query forms agree with what the service answers (filter names
// and children order make no diff), default groups are the service's, older spellings read; report
// names the service does not know are carried, misspelt ones refused with a suggestion.

import { describe, expect, it } from 'vitest';
import { checkValues } from '../../src/config/value-check.js';
import { ReportRule } from '../../src/kinds/report-rule/index.js';
import { ResourceGroup } from '../../src/kinds/resource-group/index.js';
import type { Locate } from '../../src/kinds/types.js';
import type { JsonObject } from '../../src/model/json.js';
import { desiredOf, doc, fetchCtx, requestCtx } from './helpers.js';

const GROUPS = '/api/v2/ResourceGroups';
const at: Locate = (pointer) => ({ file: 'g.yaml', line: 1, column: 1, field: pointer });

const readable: JsonObject = {
  resourceType: 'AWS',
  query: { all: [{ field: 'Region', operation: 'STARTS_WITH', values: ['eu-'] }, { any: [{ field: 'Account', values: ['2', '1'] }, { field: 'Resource Tag', key: 'env', values: ['prod'] }] }] },
};
const serviceForm: JsonObject = {
  resourceType: 'AWS',
  query: {
    filters: {
      tag: { field: 'Resource Tag', key: 'env', operation: 'EQUALS', values: ['prod'] },
      acct: { field: 'Account', operation: 'EQUALS', values: ['1', '2'] },
      region: { field: 'Region', operation: 'STARTS_WITH', values: ['eu-'] },
    },
    expression: { operator: 'AND', children: [{ operator: 'OR', children: [{ filterName: 'tag' }, { filterName: 'acct' }] }, { filterName: 'region' }] },
  },
};

describe('ResourceGroup', () => {
  it('reads the readable and the service form as one canonical query', () => {
    const [a] = desiredOf(ResourceGroup, doc('ResourceGroup', 'g', readable));
    const [b] = desiredOf(ResourceGroup, doc('ResourceGroup', 'g', serviceForm));
    expect(a.spec).toEqual(b.spec);
    expect(a.spec).toMatchObject({ resourceType: 'AWS', enabled: true, description: '' });
  });

  it('sends the service form and reads the answer back, whatever the service names its filters', async () => {
    const [d] = desiredOf(ResourceGroup, doc('ResourceGroup', 'g', readable));
    const sent = ResourceGroup.createRequest(d, [], requestCtx()).body as JsonObject;
    expect(Object.keys((sent.query as JsonObject).filters as JsonObject)).toEqual(['filter0', 'filter1', 'filter2']);
    // The service renames and reorders: the same group as far as the plan goes.
    const answered = { ...serviceForm, resourceGroupGuid: 'PROD_1', name: 'g', description: '', enabled: 1, isDefaultBoolean: false };
    const [live] = await ResourceGroup.list(fetchCtx({ [GROUPS]: [answered] }));
    expect(live.spec).toEqual(d.spec);
    expect(live.managedByService).toBeUndefined();
    // Export writes the readable form, which reads back as the same spec.
    const exported = (ResourceGroup.export?.toDocument(live, []) ?? null)!;
    expect(exported.spec.query).toHaveProperty('all');
    expect(desiredOf(ResourceGroup, doc('ResourceGroup', 'g', exported.spec))[0].spec).toEqual(d.spec);
  });

  it('reads an older group whose props the service answers as JSON text as the object it encodes; a file may give either', async () => {
    const text = JSON.stringify({ accountIds: ['1'], regions: ['eu-west-1'] });
    const records = [
      { guid: 'G1', resourceName: 'as-text', resourceType: 'AWS', enabled: 1, isDefaultBoolean: false, props: text },
      { guid: 'G2', resourceName: 'not-json', resourceType: 'AWS', enabled: 1, isDefaultBoolean: false, props: 'accountIds=1' },
    ];
    const [asText, notJson] = await ResourceGroup.list(fetchCtx({ [GROUPS]: { data: records } }));
    expect(asText.spec.props).toEqual({ accountIds: ['1'], regions: ['eu-west-1'] });
    // Text that encodes no object is carried as the text.
    expect(notJson.spec.props).toBe('accountIds=1');
    expect(ResourceGroup.export?.toDocument(asText, [])?.spec).toEqual({ resourceType: 'AWS', props: { accountIds: ['1'], regions: ['eu-west-1'] } });
    const [fromText] = desiredOf(ResourceGroup, doc('ResourceGroup', 'as-text', { resourceType: 'AWS', props: text }));
    const [fromObject] = desiredOf(ResourceGroup, doc('ResourceGroup', 'as-text', { resourceType: 'AWS', props: { accountIds: ['1'], regions: ['eu-west-1'] } }));
    expect(fromText.spec).toEqual(asText.spec);
    expect(fromObject.spec).toEqual(asText.spec);
    expect(ResourceGroup.documents?.check?.({ kind: 'ResourceGroup', name: 'as-text', spec: { resourceType: 'AWS', props: text } }, at)).toEqual([]);
  });

  it('reads older records (resourceName, guid, props) and marks default groups as the service\'s', async () => {
    const old = { guid: 'PROD_OLD', resourceName: 'All AWS Accounts', resourceType: 'AWS', enabled: 1, isDefaultBoolean: true, props: { Account: ['*'] } };
    const [live] = await ResourceGroup.list(fetchCtx({ [GROUPS]: [old] }));
    expect(live).toMatchObject({ name: 'All AWS Accounts', id: 'PROD_OLD', managedByService: true, spec: { props: { Account: ['*'] } } });
    expect((ResourceGroup.export?.toDocument(live, []) ?? null)).toBeNull();
  });

  it('renames in place and replaces on a new resource type', () => {
    const [d] = desiredOf(ResourceGroup, doc('ResourceGroup', 'g2', readable));
    const [req] = ResourceGroup.updateRequests('PROD_1', d, [], requestCtx(), { rename: true });
    expect(req).toMatchObject({ method: 'PATCH', path: '/api/v2/ResourceGroups/PROD_1', body: { name: 'g2' } });
    expect((ResourceGroup.compare?.replaceOn ?? [])).toEqual(['resourceType']);
  });

  it('refuses a query in no form or two, and a filter name the expression invents', () => {
    const codes = (spec: JsonObject) => (ResourceGroup.documents?.check?.({ kind: 'ResourceGroup', name: 'g', spec }, at) ?? []).map((d) => `${d.code} ${d.field}`);
    expect(codes({ resourceType: 'AWS' })).toEqual(['invalid-query /spec']);
    expect(codes({ resourceType: 'AWS', query: { all: [{ field: 'Region', values: ['x'] }], filters: {} } })).toEqual(['invalid-query /spec/query']);
    const bad = structuredClone(serviceForm);
    ((bad.query as JsonObject).expression as { children: JsonObject[] }).children.push({ filterName: 'nope' });
    expect(codes(bad)).toEqual(['invalid-query /spec/query/expression/children/2/filterName']);
    expect(codes({ resourceType: 'AWS', query: { all: [{ field: 'Region' }] } })).toEqual(['invalid-query /spec/query/all/0']);
    expect(codes(readable)).toEqual([]);
  });
});

describe('ReportRule', () => {
  const spec = { channels: ['mail'], reports: ['trendReport', 'pci'], severity: ['high', 1], resourceGroups: ['g', 'All AWS Accounts'] };

  it('sends every other report false and resolves groups and channels to ids', () => {
    const [d] = desiredOf(ReportRule, doc('ReportRule', 'r', spec));
    const ids = { 'AlertChannel/mail': 'PROD_MAIL', 'ResourceGroup/g': 'PROD_G', 'ResourceGroup/All AWS Accounts': 'PROD_ALL' };
    const body = ReportRule.createRequest(d, [], requestCtx(ids)).body as JsonObject;
    expect(body.intgGuidList).toEqual(['PROD_MAIL']);
    expect((body.filters as JsonObject).resourceGroups).toEqual(['PROD_ALL', 'PROD_G']);
    const types = body.reportNotificationTypes as Record<string, boolean>;
    expect(Object.entries(types).filter(([, v]) => v).map(([k]) => k)).toEqual(['trendReport', 'pci']);
    expect(Object.keys(types).length).toBeGreaterThan(30);
  });

  it('reads ticked reports, known or not, as the list a file gives', async () => {
    const rec = { mcGuid: 'm', type: 'Report', intgGuidList: ['PROD_MAIL'], filters: { name: 'r', enabled: 1, severity: [2, 1], resourceGroups: ['PROD_G'] }, reportNotificationTypes: { pci: true, hipaa: false, brandNew: true } };
    const [live] = await ReportRule.list(fetchCtx({ '/api/v2/ReportRules': [rec] }));
    expect(live.spec).toMatchObject({ reports: ['brandNew', 'pci'], severity: [1, 2], resourceGroups: ['PROD_G'], channels: ['PROD_MAIL'] });
  });

  it('refuses a misspelt report with a suggestion and carries an unknown one with a warning (its schema\'s closed set)', () => {
    const diags = checkValues('report-rule.schema.json', { kind: 'ReportRule', name: 'r', spec: { ...spec, reports: ['pci', 'trendRepot', 'quarterlyBoardPack'] } }, {
      at: (pointer) => ({ field: pointer }),
      quiet: () => false,
      ignore: [],
      label: (pointer) => pointer,
    });
    expect(diags.map((d) => [d.severity, d.code, d.field])).toEqual([
      ['error', 'unknown-report', '/spec/reports/1'],
      ['warning', 'unknown-report', '/spec/reports/2'],
    ]);
    expect(diags[0].message).toContain('did you mean `trendReport`?');
  });

  it('takes only EmailUser channels', () => {
    expect((ReportRule.references ?? []).find((r) => r.kind === 'AlertChannel')?.only).toEqual({ member: '/type', values: ['EmailUser'] });
  });
});
