// The ECR role identifies, it does not authenticate: no secret. The live service returns it in clear
// (api-facts.md): then it is compared and exported as a value. The registry response of seed 000
// answers a role-based ECR registry without its crossAccountCredentials and with a masked
// accessKeyCredentials: there the role is not compared (no perpetual diff), sent with data, shown as
// written, exported as a variable to set.

import { describe, expect, it } from 'vitest';
import { ContainerRegistry } from '../../src/kinds/container-registry/index.js';
import { diffResource } from '../../src/plan/core/diff.js';
import { writeChange } from '../../src/plan/steps/build-changes.js';
import { changeDiff, pointerNotes } from '../../src/render/display.js';
import { desiredOf, doc, fetchCtx, integrationRecord, requestCtx } from './helpers.js';
import type { JsonObject } from '../../src/model/json.js';

const LIST = '/api/v2/ContainerRegistries';
const ROLE = { roleArn: 'arn:aws:iam::123456789012:role/ecr-read', externalId: 'ext-7' };
const FILE_DATA: JsonObject = { registryType: 'AWS_ECR', awsAuthType: 'AWS_IAM', registryDomain: 'r.example.com', crossAccountCredentials: ROLE };
const LIVE_DATA: JsonObject = {
  registryType: 'AWS_ECR',
  awsAuthType: 'AWS_IAM',
  registryDomain: 'r.example.com',
  accessKeyCredentials: { accessKeyId: '', secretAccessKey: '' },
  limitNumImg: 5,
  limitByRep: [],
  limitByTag: [],
  limitByLabel: [],
  nonOsPackageEval: false,
  identifierTag: [],
};

async function liveOf(data: JsonObject) {
  const record = integrationRecord({ intgGuid: 'PROD_ECR', name: 'ecr', type: 'ContVulnCfg', enabled: 1, data });
  const [live] = await ContainerRegistry.list(fetchCtx({ [LIST]: { data: [record] } }));
  return live;
}

const desired = (data: JsonObject) => desiredOf(ContainerRegistry, doc('ContainerRegistry', 'ecr', { data }))[0];

describe('ContainerRegistry: a role the service returns in clear is a plain value', () => {
  const RETURNED: JsonObject = { ...LIVE_DATA, crossAccountCredentials: ROLE };
  delete RETURNED.accessKeyCredentials;

  it('compares it: a changed role is planned as a change of data', async () => {
    const changedRole = { ...ROLE, roleArn: 'arn:aws-us-gov:iam::123456789012:role/ecr-read-2' };
    const diff = diffResource(ContainerRegistry, desired({ ...FILE_DATA, crossAccountCredentials: changedRole }), await liveOf(RETURNED));
    expect(diff.changed).toEqual(['data']);
    expect(diff.diff).toContainEqual({ op: 'replace', path: '/data/crossAccountCredentials/roleArn', value: changedRole.roleArn });
    expect(diffResource(ContainerRegistry, desired(FILE_DATA), await liveOf(RETURNED)).changed).toEqual([]);
  });

  it('exports it as written, not as a variable to set', async () => {
    expect((ContainerRegistry.export?.toDocument(await liveOf(RETURNED), []) ?? null)?.spec).toEqual({
      data: { registryType: 'AWS_ECR', awsAuthType: 'AWS_IAM', registryDomain: 'r.example.com', crossAccountCredentials: ROLE },
    });
  });
});

describe('ContainerRegistry: the role the service does not return (seed 000)', () => {
  it('names the role members for a role-based ECR registry whose record lacks the role only', () => {
    expect(ContainerRegistry.secrets?.unreturned?.({ data: LIVE_DATA })).toEqual(['/data/crossAccountCredentials/roleArn', '/data/crossAccountCredentials/externalId']);
    expect(ContainerRegistry.secrets?.unreturned?.({ data: FILE_DATA })).toEqual([]);
    expect(ContainerRegistry.secrets?.unreturned?.({ data: { registryType: 'AWS_ECR', awsAuthType: 'AWS_ACCESS_KEY' } })).toEqual([]);
    expect(ContainerRegistry.secrets?.unreturned?.({ data: { registryType: 'DOCKERHUB' } })).toEqual([]);
    // No secret: a literal role in a file is fine.
    expect((ContainerRegistry.secrets?.secretMembers?.({ data: FILE_DATA }) ?? [])).toEqual([]);
  });

  it('reads the masked access key of a role-based registry as nothing; a real access key stays', async () => {
    expect((await liveOf(LIVE_DATA)).spec.data).not.toHaveProperty('accessKeyCredentials');
    const keyed = await liveOf({ ...LIVE_DATA, awsAuthType: 'AWS_ACCESS_KEY', accessKeyCredentials: { accessKeyId: 'AKIA1', secretAccessKey: '' } });
    expect(keyed.spec.data).toMatchObject({ accessKeyCredentials: { accessKeyId: 'AKIA1' } });
  });

  it('plans no change for a registry whose role the service did not return', async () => {
    const diff = diffResource(ContainerRegistry, desired(FILE_DATA), await liveOf(LIVE_DATA));
    expect(diff.changed).toEqual([]);
    expect(diff.diff).toEqual([]);
  });

  it('an update of data carries the role from the file, and the plan shows it unchanged with a note', async () => {
    const d = desired({ ...FILE_DATA, limitNumImg: 10 });
    const live = await liveOf(LIVE_DATA);
    const diff = diffResource(ContainerRegistry, d, live);
    expect(diff.changed).toEqual(['data']);
    expect(diff.diff).toEqual([{ op: 'replace', path: '/data/limitNumImg', value: 10 }]);
    const [req] = ContainerRegistry.updateRequests('PROD_ECR', d, diff.changed, requestCtx());
    expect(req).toMatchObject({ method: 'PATCH', body: { data: { crossAccountCredentials: ROLE, limitNumImg: 10 } } });
    expect((req.body as { data: JsonObject }).data).not.toHaveProperty('accessKeyCredentials');

    const change = writeChange({ key: 'prod/ContainerRegistry/ecr', desired: d, kind: ContainerRegistry, live, action: 'update', diff, rotate: false }, [], new Map());
    expect(change.unreturned).toEqual(['/data/crossAccountCredentials/externalId', '/data/crossAccountCredentials/roleArn']);
    const lines = changeDiff(change);
    expect(lines.filter((l) => l.kind !== 'context' && l.kind !== 'gap').map((l) => `${l.kind} ${l.text.trim()}`)).toEqual(['remove limitNumImg: 5', 'add limitNumImg: 10']);
    expect(lines.some((l) => l.text.includes(ROLE.roleArn))).toBe(false);
    expect(pointerNotes(change)).toContainEqual({ pointer: '/data/crossAccountCredentials/roleArn', note: '(not returned by the service, not compared)' });
  });

  it('--rotate sends a changed role on purpose', async () => {
    const d = desired({ ...FILE_DATA, crossAccountCredentials: { ...ROLE, roleArn: 'arn:aws:iam::123456789012:role/new' } });
    const diff = diffResource(ContainerRegistry, d, await liveOf(LIVE_DATA), true);
    expect(diff.changed).toEqual(['data']);
    expect(diff.diff).toContainEqual({ op: 'add', path: '/data/crossAccountCredentials/roleArn', value: 'arn:aws:iam::123456789012:role/new' });
  });

  it('export keeps a place for the role, so that it is written as a variable to set', async () => {
    expect((ContainerRegistry.export?.toDocument(await liveOf(LIVE_DATA), []) ?? null)).toEqual({
      kind: 'ContainerRegistry',
      name: 'ecr',
      spec: { data: { registryType: 'AWS_ECR', awsAuthType: 'AWS_IAM', registryDomain: 'r.example.com', crossAccountCredentials: { roleArn: '', externalId: '' } } },
    });
  });
});
