// The kinds against the emulator: what a kind sends is accepted, and what the service answers
// normalises to the very spec the document gave (write-only secrets aside), so an unchanged
// resource plans no change.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import type { ApiClient } from '../../src/api/types.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { KINDS, kindOf } from '../../src/kinds/index.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import type { FetchContext, RequestContext } from '../../src/kinds/types.js';
import type { JsonObject } from '../../src/model/json.js';
import { comparable, desiredOf, doc } from './helpers.js';

const DOCS: [string, string, JsonObject][] = [
  ['AlertChannel', 'ops-slack', { type: 'SlackChannel', data: { slackUrl: 'https://hooks.slack.com/services/T0/B0/x' } }],
  ['AlertChannel', 'dd', { type: 'Datadog', enabled: 0, data: { apiKey: 'dd-secret', datadogSite: 'eu', datadogType: 'Logs Detail' } }],
  [
    'CloudAccount',
    'aws-main',
    { type: 'AwsCfg', data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/r', externalId: 'ext' } } },
  ],
  [
    'ContainerRegistry',
    'ecr',
    {
      data: {
        registryType: 'AWS_ECR',
        awsAuthType: 'AWS_ACCESS_KEY',
        registryDomain: '123456789012.dkr.ecr.us-east-1.amazonaws.com',
        accessKeyCredentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'sak-secret' },
        limitNumImg: 10,
      },
    },
  ],
  ['AlertChannel', 'sec-mail', { type: 'EmailUser', data: { channelProps: { recipients: ['sec@example.com'] } } }],
  [
    'ResourceGroup',
    'rg',
    { resourceType: 'AWS', description: 'eu', query: { all: [{ field: 'Region', operation: 'STARTS_WITH', values: ['eu-'] }, { any: [{ field: 'Resource Tag', key: 'env', values: ['prod', 'live'] }, { field: 'Account', values: ['123456789012'] }] }] } },
  ],
  ['AlertRule', 'critical', { channels: ['ops-slack', 'dd'], severity: ['high', 'critical'], eventCategory: ['Compliance', 'Cloud'], resourceGroups: ['rg'], description: 'on-call' }],
  ['ReportRule', 'weekly', { channels: ['sec-mail'], reports: ['pci', 'awsComplianceEvents'], severity: ['critical'], resourceGroups: ['rg'] }],
  ['AlertChannel', 'lake', { type: 'AwsS3', data: { s3CrossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/x', externalId: 'e', bucketArn: 'arn:aws:s3:::lake' } } }],
  ['DataExportRule', 'to-lake', { channels: ['lake'], description: 'all of it', profileVersions: ['V1'] }],
  [
    'VulnerabilityException',
    'webp',
    {
      type: 'Container',
      reason: 'Accepted Risk',
      description: 'not reachable',
      criteria: { cves: ['CVE-2023-4863'], packages: [{ name: 'libwebp', version: '1.3.0' }, { name: 'zlib', version: '1.2' }, { name: 'libwebp', version: '1.2.4' }], severities: ['High', 'Critical'], fixable: true },
      scope: { repository: ['shop/front'], registry: ['ghcr.io'] },
      expiry: '2031-01-01T02:00:00+02:00',
    },
  ],
  ['VulnerabilityException', 'hosts', { type: 'Host', reason: 'Fix Pending', enabled: false, criteria: { severities: ['Low'] } }],
  [
    'AlertProfile',
    'CUSTOM_FILES',
    {
      extends: 'SVC_HE_FILES_DEFAULT_PROFILE',
      alerts: [{ name: 'File_Violation', eventName: 'Changed file', subject: '{{PATH}} changed on {{MID}}', description: '{{_OCCURRENCE}}' }],
    },
  ],
  ['Query', 'ShadowChanged', { name: 'Shadow changed', text: "--- the password file\n{\n  source { SVC_HE_FILES f }\n  return { f.MID, f.PATH }  \n}\n" }],
  ['Policy', 'shadow', { query: 'ShadowChanged', title: 'Shadow changed', remediation: 'Look', severity: 'HIGH', tags: ['b', 'a'], alertTemplate: 'CUSTOM_FILES.File_Violation', limit: 50 }],
  ['Policy', 'publicread-2', { query: 'SVC_Global_AWS_Config_S3BucketPublicRead', title: 'Public', remediation: 'Fix', severity: 'low', type: 'Compliance', alertProfile: 'SVC_CFG_AWS_DEFAULT_PROFILE', enabled: false }],
];

// A fresh emulator, client and id map for every case: no case relies on what another created.
let emulator: RunningEmulator;
let client: ApiClient;
let ids: Map<string, string>;

function requestCtx(): RequestContext {
  return {
    account: 'prod',
    orgAccess: false,
    resolve: (kind, name) => {
      const id = ids.get(`${kind}/${name}`);
      if (id === undefined) throw new Error(`unresolved ${kind}/${name}`);
      return id;
    },
  };
}

async function listAll(): Promise<LiveResource[]> {
  const memo = new Map<string, Promise<unknown>>();
  const ctx: FetchContext = {
    account: 'prod',
    orgAccess: false,
    get(path) {
      if (!memo.has(path)) memo.set(path, client.request({ method: 'GET', path, account: 'prod' }).then((r) => r.body));
      return memo.get(path)!;
    },
  };
  // The predefined policies' state is the service's records (PredefinedPolicies has its own tests).
  const live = (await Promise.all(KINDS.filter((k) => !k.lifecycle?.stateOnly).map((k) => k.list(ctx)))).flat();
  // What the engine does through `references`: ids → names.
  const nameOf = new Map([...ids].map(([key, id]) => [id, key.split('/')[1]]));
  return live.map((r) => {
    let spec = r.spec;
    for (const ref of (kindOf(r.kind).references ?? [])) {
      const member = ref.pointer.slice(1);
      const value = spec[member];
      if (typeof value === 'string') spec = { ...spec, [member]: nameOf.get(value) ?? value };
      else if (Array.isArray(value)) spec = { ...spec, [member]: (value as string[]).map((id) => nameOf.get(id) ?? id).sort() };
    }
    return { ...r, spec };
  });
}

function find(live: LiveResource[], d: DesiredResource): LiveResource {
  const found = live.filter((r) => r.kind === d.kind && r.name === d.name);
  expect(found, `${d.kind}/${d.name}`).toHaveLength(1);
  return found[0];
}

beforeEach(async () => {
  ids = new Map();
  emulator = await startEmulator({ accounts: ['prod'] });
  client = createClient({ baseUrl: emulator.url, keyId: emulator.keyId, secret: emulator.secret });
});

afterEach(async () => {
  await client?.close();
  await emulator?.close();
});

const desired = DOCS.flatMap(([kind, name, spec]) => desiredOf(kindOf(kind), doc(kind, name, spec)));

/** Creates every resource of DOCS (templates with their profile), recording the ids. */
async function createAll(): Promise<void> {
  for (const d of desired.filter((r) => r.kind !== 'AlertTemplate')) {
    const kind = kindOf(d.kind);
    const children = desired.filter((c) => c.parent === d.name && c.kind === 'AlertTemplate');
    const res = await client.request(kind.createRequest(d, children, requestCtx()));
    ids.set(`${d.kind}/${d.name}`, kind.createdId(res.body, d));
  }
}

describe('kinds against the emulator', () => {
  it('creates every resource and reads each back as the same canonical spec', async () => {
    await createAll();
    const live = await listAll();
    for (const d of desired) {
      const kind = kindOf(d.kind);
      const l = find(live, d);
      expect(comparable(kind, l.spec), `${d.kind}/${d.name}`).toEqual(comparable(kind, d.spec));
      // And the export of it reads back as the same spec.
      if (kind.documentKind === null) continue;
      const exported = (kind.export?.toDocument(l, live.filter((c) => c.parent === l.name)) ?? null);
      const again = desiredOf(kind, doc(exported!.kind, exported!.name, exported!.spec)).find((r) => r.name === d.name)!;
      expect(comparable(kind, again.spec)).toEqual(comparable(kind, d.spec));
    }
    expect(live.filter((r) => r.managedByService).length).toBeGreaterThan(0);
    expect(live.find((r) => r.kind === 'AlertProfile' && r.name === 'SVC_HE_FILES_DEFAULT_PROFILE')?.info?.descriptionKeys).toBeTruthy();
  });

  it('applies updates and reads the new specs back', async () => {
    await createAll();
    const ctx = requestCtx();
    const changes: [string, string, JsonObject, string[]][] = [
      ['AlertChannel', 'dd', { type: 'Datadog', enabled: 1, data: { apiKey: 'dd-rotated', datadogSite: 'com', datadogType: 'Events Summary' } }, ['enabled', 'data']],
      ['AlertChannel', 'ops-slack', { type: 'Webhook', data: { webhookUrl: 'https://hooks.example.com/x' } }, ['type', 'data']],
      ['ContainerRegistry', 'ecr', { enabled: false, data: { registryType: 'AWS_ECR', awsAuthType: 'AWS_IAM', registryDomain: 'r.example.com', crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/r', externalId: 'e' } } }, ['enabled', 'data']],
      ['AlertRule', 'critical', { channels: ['dd'], severity: [3], resourceGroups: ['rg'], enabled: false }, ['channels', 'severity', 'resourceGroups', 'eventCategory', 'description', 'enabled']],
      ['DataExportRule', 'to-lake', { channels: ['lake'], enabled: false, profileVersions: [] }, ['description', 'enabled', 'profileVersions']],
      // Criteria narrowed to one package and no fixable filter; the scope widened to every resource.
      ['VulnerabilityException', 'webp', { type: 'Container', reason: 'Other', criteria: { packages: [{ name: 'zlib', version: '1.2' }] }, expiry: '2032-01-01T00:00:00Z' }, ['reason', 'description', 'criteria', 'scope', 'expiry']],
      ['VulnerabilityException', 'hosts', { type: 'Host', reason: 'Fix Pending', criteria: { severities: ['Low'] }, scope: { hostname: ['b1'] } }, ['enabled', 'scope']],
      ['Query', 'ShadowChanged', { name: 'Shadow changed', text: '{ source { SVC_HE_FILES f } filter { f.PATH = 1 } return { f.MID } }', description: 'now described' }, ['text', 'description']],
      ['Policy', 'shadow', { query: 'ShadowChanged', title: 'Shadow', remediation: 'Look', severity: 'Critical', type: 'Compliance', tags: ['c'], alertEnabled: false, limit: 50, alertTemplate: 'CUSTOM_FILES.File_Violation' }, ['title', 'severity', 'type', 'tags', 'alertEnabled', 'frequency']],
    ];
    const updated = changes.map(([kind, name, spec]) => desiredOf(kindOf(kind), doc(kind, name, spec))[0]);
    for (const [i, d] of updated.entries()) {
      for (const req of kindOf(d.kind).updateRequests(ids.get(`${d.kind}/${d.name}`)!, d, changes[i][3], ctx)) await client.request(req);
    }
    const template = desiredOf(kindOf('AlertProfile'), doc('AlertProfile', 'CUSTOM_FILES', { extends: 'SVC_HE_FILES_DEFAULT_PROFILE', alerts: [{ name: 'File_Violation', eventName: 'Changed', subject: '{{PATH}}', description: 'd' }] }))[1];
    for (const req of kindOf('AlertTemplate').updateRequests('CUSTOM_FILES.File_Violation', template, ['eventName', 'subject', 'description'], ctx)) {
      await client.request(req);
    }
    const live = await listAll();
    for (const d of [...updated, template]) {
      const kind = kindOf(d.kind);
      expect(comparable(kind, find(live, d).spec, d.spec), `${d.kind}/${d.name}`).toEqual(comparable(kind, d.spec, find(live, d).spec));
    }
  });

  it('deletes what it created', async () => {
    await createAll();
    expect((await listAll()).filter((r) => !r.managedByService)).toHaveLength(desired.length);
    const ctx = requestCtx();
    await client.request(kindOf('AlertTemplate').deleteRequest('CUSTOM_FILES.File_Violation', ctx));
    for (const key of ['Policy/shadow', 'Policy/publicread-2', 'Query/ShadowChanged', 'AlertRule/critical', 'DataExportRule/to-lake', 'VulnerabilityException/webp', 'VulnerabilityException/hosts', 'AlertChannel/lake', 'ReportRule/weekly', 'ResourceGroup/rg', 'AlertProfile/CUSTOM_FILES', 'AlertChannel/dd', 'AlertChannel/ops-slack', 'AlertChannel/sec-mail', 'CloudAccount/aws-main', 'ContainerRegistry/ecr']) {
      const [kind] = key.split('/');
      await client.request(kindOf(kind).deleteRequest(key === 'AlertProfile/CUSTOM_FILES' ? 'CUSTOM_FILES' : ids.get(key)!, ctx));
    }
    const live = await listAll();
    expect(live.filter((r) => !r.managedByService)).toEqual([]);
  });
});
