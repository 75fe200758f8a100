// Kind.secretMembers: every secret a file may hold, used or not, with its write-only flag, and never
// fewer than the kind compares or hides (writeOnly, sensitive).

import { describe, expect, it } from 'vitest';
import { AlertChannel } from '../../src/kinds/alert-channel/index.js';
import { CloudAccount } from '../../src/kinds/cloud-account/index.js';
import { ContainerRegistry } from '../../src/kinds/container-registry/index.js';
import { KINDS } from '../../src/kinds/index.js';
import type { JsonObject } from '../../src/model/json.js';

const jiraCloud: JsonObject = { type: 'Jira', data: { jiraType: 'JIRA_CLOUD', apiToken: 't' } };

const SAMPLES: JsonObject[] = [
  jiraCloud,
  { type: 'SlackChannel', data: { slackUrl: 'u' } },
  { type: 'GcpCfg', data: {} },
  { type: 'AzureCfg', data: {} },
  { data: { registryType: 'AWS_ECR', awsAuthType: 'AWS_ACCESS_KEY' } },
  { data: { registryType: 'DOCKERHUB' } },
  { extends: 'SVC_X', alerts: [] },
  { channels: ['a'], severity: ['high'] },
];

describe('secretMembers', () => {
  it('lists an unused secret of the type too (a Jira Server password on Jira Cloud)', () => {
    expect((AlertChannel.secrets?.secretMembers?.(jiraCloud) ?? [])).toEqual([
      { pointer: '/data/apiToken', writeOnly: true },
      { pointer: '/data/password', writeOnly: true },
    ]);
    expect((AlertChannel.secrets?.writeOnly?.(jiraCloud) ?? [])).toEqual(['/data/apiToken']);
  });

  it('says which secrets come back in clear', () => {
    expect((AlertChannel.secrets?.secretMembers?.({ type: 'SlackChannel', data: {} }) ?? [])).toEqual([{ pointer: '/data/slackUrl', writeOnly: false }]);
    expect((CloudAccount.secrets?.secretMembers?.({ type: 'AwsCfg', data: {} }) ?? [])).toEqual([]);
    expect((ContainerRegistry.secrets?.secretMembers?.({ data: { registryType: 'GHCR' } }) ?? [])).toEqual([{ pointer: '/data/credentials/password', writeOnly: true }]);
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))('%s: covers every pointer it treats as write-only or sensitive', (_name, kind) => {
    for (const spec of SAMPLES) {
      const members = (kind.secrets?.secretMembers?.(spec) ?? []);
      for (const p of (kind.secrets?.writeOnly?.(spec) ?? [])) expect(members).toContainEqual({ pointer: p, writeOnly: true });
      for (const p of (kind.secrets?.sensitive?.(spec) ?? [])) expect(members).toContainEqual({ pointer: p, writeOnly: false });
    }
  });
});

describe('secrets.facts: the three lists from one reading of the spec', () => {
  // Masked values, members named as secrets that no table lists, in known and unknown types, nested.
  const specs: JsonObject[] = [
    ...SAMPLES,
    { type: 'Webhook', data: { webhookUrl: 'https://x', apiKey: '****', nested: { clientSecret: 's', list: [{ token: 't' }] } } },
    { type: 'NewTypeV9', data: { password: 'p', url: '', other: '********' } },
    { type: 'SlackChannel', data: { slackUrl: '${env:X}', privateKey: '-----', note: '[redacted]' } },
    { data: { registryType: 'GHCR', credentials: { username: 'u', password: '****' } } },
    { type: 'AwsCfg', data: { crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/r', externalId: 'e', secretKey: 'k' } } },
  ];

  it.each(KINDS.filter((k) => k.secrets?.facts).map((k) => [k.kind, k] as const))('%s: facts equals secretMembers, writeOnly and sensitive asked alone', (_name, kind) => {
    for (const spec of specs) {
      expect(kind.secrets!.facts!(spec), JSON.stringify(spec)).toEqual({
        members: kind.secrets?.secretMembers?.(spec) ?? [],
        writeOnly: kind.secrets?.writeOnly?.(spec) ?? [],
        sensitive: kind.secrets?.sensitive?.(spec) ?? [],
      });
    }
  });

  it('is offered where secretMembers is (the loader asks it of every document)', () => {
    expect(KINDS.filter((k) => k.secrets?.secretMembers).map((k) => k.kind)).toEqual(KINDS.filter((k) => k.secrets?.facts).map((k) => k.kind));
    expect(KINDS.filter((k) => k.secrets?.facts).length).toBeGreaterThan(2);
  });
});

describe('secrets no table names, beside those the table names', () => {
  it("a secret the type's schema lists keeps the table's flag: Splunk's hecToken is returned, so compared (sensitive), not write-only", () => {
    const facts = AlertChannel.secrets!.facts!({ type: 'SplunkHec', data: { hecToken: 'x', channel: 'c' } });
    expect(facts).toEqual({ members: [{ pointer: '/data/hecToken', writeOnly: false }], writeOnly: [], sensitive: ['/data/hecToken'] });
  });

  it('a secret-named member the schema does not list, or any in a type this version does not know, is write-only', () => {
    const known = AlertChannel.secrets!.facts!({ type: 'SplunkHec', data: { hecToken: 'x', extraToken: 'y' } });
    expect(known.writeOnly).toEqual(['/data/extraToken']);
    expect(known.members).toEqual([{ pointer: '/data/hecToken', writeOnly: false }, { pointer: '/data/extraToken', writeOnly: true }]);
    const unknown = AlertChannel.secrets!.facts!({ type: 'FutureChannel', data: { hecToken: 'x' } });
    expect(unknown.writeOnly).toEqual(['/data/hecToken']);
    expect(unknown.members).toEqual([{ pointer: '/data/hecToken', writeOnly: true }]);
  });

  it('a table secret the service shows masked is named once, with the flag of the table', () => {
    const facts = AlertChannel.secrets!.facts!({ type: 'SplunkHec', data: { hecToken: '****', channel: 'c' } });
    expect(facts.members).toEqual([{ pointer: '/data/hecToken', writeOnly: false }]);
    // Shown masked, it is treated as write-only: the mask is never compared or sent back.
    expect(facts.writeOnly).toEqual(['/data/hecToken']);
    const jira = AlertChannel.secrets!.facts!({ type: 'Jira', data: { jiraType: 'JIRA_CLOUD', apiToken: '****' } });
    expect(jira.members.filter((m) => m.pointer === '/data/apiToken')).toEqual([{ pointer: '/data/apiToken', writeOnly: true }]);
  });
});
