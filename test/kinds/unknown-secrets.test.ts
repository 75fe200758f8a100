// Issue 19 on the three integration kinds: secrets no table names (members of an unknown type named
// as secrets, members the service shows masked) are write-only: never kept as read, never compared,
// refused as literals, exported as variables; and an update's live rest never carries what the live
// record held masked or empty, for known and unknown types, with and without --rotate.

import { describe, expect, it } from 'vitest';
import { AlertChannel } from '../../src/kinds/alert-channel/index.js';
import { CloudAccount } from '../../src/kinds/cloud-account/index.js';
import { ContainerRegistry } from '../../src/kinds/container-registry/index.js';
import type { Kind } from '../../src/kinds/types.js';
import { diffResource } from '../../src/plan/core/diff.js';
import { getAt } from '../../src/model/json-pointer.js';
import type { JsonObject } from '../../src/model/json.js';
import { WITHHELD } from '../../src/model/secret-detection.js';
import type { LiveResource } from '../../src/model/resource.js';
import { doc, fetchCtx, integrationRecord, requestCtx } from './helpers.js';

async function liveOf(kind: Kind, path: string, type: string, data: JsonObject): Promise<LiveResource> {
  const [live] = await kind.list(fetchCtx({ [path]: { data: [integrationRecord({ intgGuid: 'ID1', name: 'x', type, enabled: 1, data })] } }));
  return live;
}

function desired(kind: Kind, spec: JsonObject, envRefs: Record<string, string> = {}) {
  return kind.fromDocument(doc(kind.documentKind!, 'x', spec, { envRefs })).resources[0];
}

/** Every string at any depth. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
}

/** What the update of `diff` sends: its PATCH (or PUT) bodies. */
function sentBodies(kind: Kind, d: ReturnType<typeof desired>, after: JsonObject, changed: string[]): unknown[] {
  return kind.updateRequests('ID1', { ...d, spec: after }, changed, requestCtx()).map((r) => r.body);
}

interface Case {
  title: string;
  kind: Kind;
  path: string;
  type: string;
  live: JsonObject;
  /** The file: one plain member changed, the masked/empty ones not named. */
  file: JsonObject;
  /** Members (pointers in the spec) the update must not carry. */
  absent: string[];
  /** Members it must carry from the live rest. */
  kept: string[];
}

const CASES: Case[] = [
  {
    title: 'unknown cloud account type: secrets in clear, "" and masked, at any depth',
    kind: CloudAccount,
    path: '/api/v2/CloudAccounts',
    type: 'FutureCloudCfg',
    live: {
      region: 'eu-1',
      credentials: { clientId: 'c', clientSecret: 'CANARY-1', keyId: 'k' },
      password: '****',
      deep: { a: { hecToken: 'CANARY-2', opaque: '*****abc', note: '' } },
    },
    file: { type: 'FutureCloudCfg', data: { region: 'eu-2' } },
    absent: ['/data/credentials/clientSecret', '/data/password', '/data/deep/a/hecToken', '/data/deep/a/opaque', '/data/deep/a/note'],
    kept: ['/data/credentials/clientId', '/data/credentials/keyId'],
  },
  {
    title: 'known cloud account type: a write-only secret read as "" and a plain member read masked',
    kind: CloudAccount,
    path: '/api/v2/CloudAccounts',
    type: 'AzureCfg',
    live: { credentials: { clientId: 'c', clientSecret: '' }, tenantId: 't', extra: '****' },
    file: { type: 'AzureCfg', data: { tenantId: 't2' } },
    absent: ['/data/credentials/clientSecret', '/data/extra'],
    kept: ['/data/credentials/clientId'],
  },
  {
    title: 'known alert channel: a compared secret and a plain member read masked, an empty one',
    kind: AlertChannel,
    path: '/api/v2/AlertChannels',
    type: 'SplunkHec',
    live: { host: 'splunk.example.com', port: 8088, ssl: true, channel: 'xxxxxxxx', hecToken: '****', eventData: { index: 'main', source: '' } },
    file: { type: 'SplunkHec', data: { host: 'splunk2.example.com' } },
    absent: ['/data/channel', '/data/hecToken', '/data/eventData/source'],
    kept: ['/data/port', '/data/eventData/index'],
  },
  {
    title: 'unknown alert channel type',
    kind: AlertChannel,
    path: '/api/v2/AlertChannels',
    type: 'FuturePagerCfg',
    live: { service: { apiIntgKey: 'CANARY-3', escalation: 'primary' }, tokens: ['****', '****'], severityMap: 'a' },
    file: { type: 'FuturePagerCfg', data: { severityMap: 'b' } },
    absent: ['/data/service/apiIntgKey', '/data/tokens'],
    kept: ['/data/service/escalation'],
  },
  {
    title: 'known registry type: the password read as "", a member masked',
    kind: ContainerRegistry,
    path: '/api/v2/ContainerRegistries',
    type: 'ContVulnCfg',
    live: { registryType: 'DOCKERHUB', registryDomain: 'index.docker.io', credentials: { username: 'u', password: '' }, limitNumImg: 5, webhookSecretHint: '[redacted]' },
    file: { data: { registryType: 'DOCKERHUB', limitNumImg: 6 } },
    absent: ['/data/credentials/password', '/data/webhookSecretHint'],
    kept: ['/data/credentials/username', '/data/registryDomain'],
  },
  {
    title: 'unknown registry type',
    kind: ContainerRegistry,
    path: '/api/v2/ContainerRegistries',
    type: 'ContVulnCfg',
    live: { registryType: 'QUAY_IO', registryDomain: 'quay.io', credentials: { username: 'robot', robotToken: 'CANARY-4' }, limitNumImg: 5 },
    file: { data: { registryType: 'QUAY_IO', limitNumImg: 6 } },
    absent: ['/data/credentials/robotToken'],
    kept: ['/data/credentials/username', '/data/registryDomain'],
  },
];

describe('the live rest of an update', () => {
  it.each(CASES)('$title: no member read masked or empty is sent back', async (c) => {
    const live = await liveOf(c.kind, c.path, c.type, c.live);
    expect(JSON.stringify(live.spec)).not.toMatch(/CANARY/);
    const d = desired(c.kind, c.file);
    for (const rotate of [false, true]) {
      const diff = diffResource(c.kind, d, live, rotate);
      expect(diff.changed).toContain('data');
      const bodies = sentBodies(c.kind, d, diff.after, diff.changed);
      expect(bodies).toHaveLength(1);
      const spec = { data: (bodies[0] as { data: JsonObject }).data };
      for (const ptr of c.absent) expect(getAt(spec, ptr), `${ptr} (rotate ${rotate})`).toBeUndefined();
      for (const ptr of c.kept) expect(getAt(spec, ptr), `${ptr} (rotate ${rotate})`).toEqual(getAt({ data: c.live }, ptr));
      for (const s of strings(spec)) expect(s).not.toMatch(/^$|\*\*\*|CANARY|xxxx|redacted/);
    }
  });
});

describe('secrets no table names', () => {
  it('an unknown type keeps its named secrets as a mask when read, even when returned in clear', async () => {
    const live = await liveOf(CloudAccount, '/api/v2/CloudAccounts', 'FutureCloudCfg', {
      credentials: { clientId: 'c', clientSecret: 'CANARY-1' },
      apiKeys: ['CANARY-2'],
      plain: '****',
      tokenUrl: 'https://t',
    });
    expect(live.spec.data).toEqual({ credentials: { clientId: 'c', clientSecret: WITHHELD }, apiKeys: WITHHELD, plain: WITHHELD, tokenUrl: 'https://t' });
    expect((CloudAccount.secrets?.writeOnly?.(live.spec) ?? []).sort()).toEqual(['/data/apiKeys', '/data/credentials/clientSecret', '/data/plain']);
  });

  it('a known type names the secrets of the members it lists by table; a member it does not list is judged by its name, as in an unknown type', async () => {
    const live = await liveOf(CloudAccount, '/api/v2/CloudAccounts', 'AwsCfg', {
      awsAccountId: '123456789012',
      crossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/r', externalId: 'e' },
      sessionToken: 'CANARY-session',
      scanRegion: 'eu-1',
    });
    // Carried (the service's member), but never in clear: a secret no table names.
    expect(JSON.stringify(live.spec)).not.toContain('CANARY-session');
    expect(getAt(live.spec, '/data/scanRegion')).toBe('eu-1');
    expect((CloudAccount.secrets?.writeOnly?.(live.spec) ?? [])).toEqual(['/data/sessionToken']);
    // A listed member is no secret whatever its name suggests (the table says which are).
    const gcp = { type: 'GcpSidekick', data: { credentials: { clientId: 'c', clientEmail: 'e', privateKeyId: 'k', privateKey: '${env:K}', tokenUri: 'https://t' } } };
    expect((CloudAccount.secrets?.secretMembers?.(gcp) ?? []).map((m) => m.pointer)).toEqual(['/data/credentials/privateKey']);
  });

  it('in a file: every named secret of an unknown type, and every masked value, is a write-only secret member', () => {
    const spec = { type: 'FutureCloudCfg', data: { credentials: { clientId: 'c', clientSecret: 'x' }, DB_PASSWD: 'y', region: '****', keyId: 'k' } };
    expect((CloudAccount.secrets?.secretMembers?.(spec) ?? [])).toEqual(
      expect.arrayContaining([
        { pointer: '/data/credentials/clientSecret', writeOnly: true },
        { pointer: '/data/DB_PASSWD', writeOnly: true },
        { pointer: '/data/region', writeOnly: true },
      ]),
    );
    expect((CloudAccount.secrets?.secretMembers?.(spec) ?? []).map((m) => m.pointer)).not.toContain('/data/keyId');
  });

  it('never compared: a named secret of an unknown type or a masked member shows no change, whatever the file says', async () => {
    const live = await liveOf(AlertChannel, '/api/v2/AlertChannels', 'FuturePagerCfg', { apiIntgKey: 'old', region: '****', name2: 'a' });
    const d = desired(AlertChannel, { type: 'FuturePagerCfg', data: { apiIntgKey: 'new', region: 'eu', name2: 'a' } }, { '/data/apiIntgKey': '${env:K}', '/data/region': '${env:R}' });
    const diff = diffResource(AlertChannel, d, live);
    expect(diff.changed).toEqual([]);
    expect(diff.writeOnly).toEqual(['/data/apiIntgKey', '/data/region']);
    // --rotate sends them (from the file), and shows them masked.
    const rotated = diffResource(AlertChannel, d, live, true);
    expect(rotated.changed).toEqual(['data']);
    expect(JSON.stringify(rotated.diff)).not.toMatch(/new|"eu"/);
  });

  it('export: named and masked secrets become variables, an empty member is left out with a warning', async () => {
    const live = await liveOf(CloudAccount, '/api/v2/CloudAccounts', 'FutureCloudCfg', { credentials: { clientSecret: 'CANARY-1' }, note: '', list: [''], region: 'eu' });
    const exported = (CloudAccount.export?.toDocument(live, []) ?? null)!;
    expect(exported.spec.data).toEqual({ credentials: { clientSecret: WITHHELD }, list: [''], region: 'eu' });
    expect(exported.notes).toEqual([expect.objectContaining({ severity: 'warning', code: 'empty-member-left-out', field: '/spec/data/note' })]);
    expect(exported.notes?.[0].message).toMatch(/CloudAccount "x" in account prod: spec\/data\/note is empty/);
    // A known type's empty members are its own settings: exported as read.
    const known = await liveOf(CloudAccount, '/api/v2/CloudAccounts', 'AwsCtSqs', {
      crossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/r', externalId: 'e' },
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q',
      accountMappingFile: '',
    });
    expect((CloudAccount.export?.toDocument(known, []) ?? null)!.notes).toBeUndefined();
  });
});

describe('export of an unknown type', () => {
  it('a plain member that holds the text of a mask is exported as read, not taken for a leaked secret', async () => {
    const { exportConfig } = await import('../../src/ops/export/export.js');
    const live = await liveOf(CloudAccount, '/api/v2/CloudAccounts', 'FutureCloudCfg', { password: 'CANARY-1', query: 'match a****b in the logs' });
    const result = exportConfig({ resources: [live] } as never, { accounts: [{ name: 'prod' }] as never, kindNames: ['CloudAccount'] });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const file = result.files.find((f) => f.path.endsWith('cloud-accounts.yaml'))!.content;
    expect(file).toContain('query: match a****b in the logs');
    expect(file).toMatch(/password: \$\{env:SECRET_PROD_X_PASSWORD\}/);
  });
});

describe('a member the service shows empty', () => {
  it('is compared when the file writes it, and taken for a hidden secret when the file takes it from the environment', async () => {
    const live = await liveOf(CloudAccount, '/api/v2/CloudAccounts', 'FutureCloudCfg', { note: '', region: 'eu' });
    const literal = diffResource(CloudAccount, desired(CloudAccount, { type: 'FutureCloudCfg', data: { note: 'set', region: 'eu' } }), live);
    expect(literal.changed).toEqual(['data']);
    const fromEnv = desired(CloudAccount, { type: 'FutureCloudCfg', data: { note: 'from-env', region: 'eu' } }, { '/data/note': '${env:NOTE}' });
    const diff = diffResource(CloudAccount, fromEnv, live);
    expect(diff.changed).toEqual([]);
    expect(diff.writeOnly).toEqual(['/data/note']);
    expect(diffResource(CloudAccount, fromEnv, live, true).changed).toEqual(['data']);
  });
});
