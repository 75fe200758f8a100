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
