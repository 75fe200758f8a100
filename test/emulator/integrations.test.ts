import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { boot, slack, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await boot();
});
afterEach(() => h.close());

const awsCfg = { name: 'aws-prod', type: 'AwsCfg', enabled: 1, data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/x', externalId: 'ext' } } };
const ecrKeys = {
  name: 'ecr',
  type: 'ContVulnCfg',
  enabled: 1,
  data: {
    registryType: 'AWS_ECR',
    awsAuthType: 'AWS_ACCESS_KEY',
    registryDomain: '123456789012.dkr.ecr.us-east-1.amazonaws.com',
    accessKeyCredentials: { accessKeyId: 'AKIA', secretAccessKey: 'TOPSECRET' },
  },
};

describe('CloudAccounts', () => {
  it('supports create, list, list by type, get, PATCH, PUT, search and delete', async () => {
    const c = await h.call('POST', 'CloudAccounts', { body: awsCfg });
    expect(c.status).toBe(201);
    const id = c.body.data.intgGuid;
    expect(c.body.data.data).toEqual(awsCfg.data);
    expect((await h.call('GET', 'CloudAccounts')).body.data).toHaveLength(1);
    expect((await h.call('GET', 'CloudAccounts/AwsCfg')).body.data).toHaveLength(1);
    expect((await h.call('GET', 'CloudAccounts/GcpCfg')).body.data).toHaveLength(0);
    expect((await h.call('PATCH', `CloudAccounts/${id}`, { body: { enabled: 0 } })).body.data.enabled).toBe(0);
    expect((await h.call('PUT', `CloudAccounts/${id}`, { body: { ...awsCfg, name: 'aws2' } })).body.data.name).toBe('aws2');
    const s = await h.call('POST', 'CloudAccounts/search', { body: { filters: [{ field: 'data.awsAccountId', expression: 'eq', value: '123456789012' }] } });
    expect(s.body.data).toHaveLength(1);
    expect((await h.call('DELETE', `CloudAccounts/${id}`)).status).toBe(204);
  });

  it('validates data and masks write-only secrets', async () => {
    const bad = await h.call('POST', 'CloudAccounts', { body: { ...awsCfg, data: { crossAccountCredentials: { roleArn: 'r' } } } });
    expect(bad.body.message).toBe('Invalid data: #1: [data/crossAccountCredentials/externalId: required]');
    const az = await h.call('POST', 'CloudAccounts', {
      body: { name: 'az', type: 'AzureCfg', enabled: 1, data: { tenantId: 't', credentials: { clientId: 'c', clientSecret: 'AZSECRET' } } },
    });
    expect(az.status).toBe(201);
    expect(az.body.data.data.credentials).toEqual({ clientId: 'c', clientSecret: '' });
  });
});

describe('ContainerRegistries', () => {
  it('masks the ECR secret access key and adds the response defaults', async () => {
    const r = await h.call('POST', 'ContainerRegistries', { body: ecrKeys });
    expect(r.status).toBe(201);
    const data = r.body.data.data;
    expect(data.accessKeyCredentials).toEqual({ accessKeyId: 'AKIA', secretAccessKey: '' });
    expect(data).toMatchObject({ identifierTag: [], limitNumImg: 5, limitByRep: [], limitByTag: [], limitByLabel: [], nonOsPackageEval: false });
    expect(JSON.stringify((await h.call('GET', 'ContainerRegistries')).body)).not.toContain('TOPSECRET');
    const kept = await h.call('POST', 'ContainerRegistries', { body: { ...ecrKeys, data: { ...ecrKeys.data, limitNumImg: 10, limitByTag: ['v*'] } } });
    expect(kept.body.data.data).toMatchObject({ limitNumImg: 10, limitByTag: ['v*'] });
  });

  it('leaves a GCP registry privateKey out and returns its privateKeyId in clear (api-facts.md)', async () => {
    const credentials = { clientEmail: 'a@b.iam', clientId: '1', privateKey: 'GCPPK', privateKeyId: 'GCPPKID' };
    const r = await h.call('POST', 'ContainerRegistries', {
      body: { name: 'gcr', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'GCP_GCR', registryDomain: 'gcr.io', credentials } },
    });
    expect(r.status).toBe(201);
    expect(r.body.data.data.credentials).toEqual({ clientEmail: 'a@b.iam', clientId: '1', privateKeyId: 'GCPPKID' });
    expect(JSON.stringify((await h.call('GET', 'ContainerRegistries')).body)).not.toContain('GCPPK"');
  });

  it('validates type, registry type and credentials for the auth type', async () => {
    const type = await h.call('POST', 'ContainerRegistries', { body: { ...ecrKeys, type: 'AwsCfg' } });
    expect(type.body.message).toContain('type: must be one of "ContVulnCfg"');
    const reg = await h.call('POST', 'ContainerRegistries', { body: { ...ecrKeys, data: { registryType: 'QUAY' } } });
    expect(reg.body.message).toContain('data/registryType: must be one of');
    const iam = await h.call('POST', 'ContainerRegistries', { body: { ...ecrKeys, data: { ...ecrKeys.data, awsAuthType: 'AWS_IAM' } } });
    expect(iam.status).toBe(400);
    expect(iam.body.message).toContain('data/crossAccountCredentials/roleArn: required for awsAuthType AWS_IAM');
    const hub = await h.call('POST', 'ContainerRegistries', {
      body: { name: 'hub', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'DOCKERHUB', credentials: { username: 'u', password: 'PW' } } },
    });
    expect(hub.status).toBe(201);
    expect(hub.body.data.data.credentials).toEqual({ username: 'u', password: '' });
  });

  it('has GET, PATCH, search and DELETE (204) on records, and no PUT (405)', async () => {
    const id = (await h.call('POST', 'ContainerRegistries', { body: ecrKeys })).body.data.intgGuid;
    expect((await h.call('GET', `ContainerRegistries/${id}`)).body.data.name).toBe('ecr');
    expect((await h.call('PATCH', `ContainerRegistries/${id}`, { body: { name: 'ecr2' } })).body.data.name).toBe('ecr2');
    const s = await h.call('POST', 'ContainerRegistries/search', { body: { filters: [{ field: 'data.registryType', expression: 'eq', value: 'AWS_ECR' }], returns: ['name'] } });
    expect(s.body.data).toEqual([{ name: 'ecr2' }]);
    const put = await h.call('PUT', `ContainerRegistries/${id}`, { body: ecrKeys });
    expect(put.status).toBe(405);
    expect(put.body.message).toBeTruthy();
    const del = await h.call('DELETE', `ContainerRegistries/${id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
  });
});

describe('schemas', () => {
  it('lists type names, fields of a type, and request schemas of a subtype', async () => {
    const types = await h.call('GET', 'schemas');
    expect(types.body).toEqual(expect.arrayContaining(['AlertChannels', 'AlertRules', 'CloudAccounts', 'ContainerRegistries']));
    const fields = await h.call('GET', 'schemas/AlertChannels');
    expect(fields.body).toEqual(expect.arrayContaining([{ name: 'intgGuid', type: 'string' }, { name: 'enabled', type: 'number' }]));
    const slackSchema = await h.call('GET', 'schemas/AlertChannels/SlackChannel');
    expect(slackSchema.status).toBe(200);
    const s = slackSchema.body[0];
    expect(s.required).toEqual(['name', 'type', 'enabled', 'data']);
    expect(s.properties.data.required).toEqual(['slackUrl']);
    expect(s.properties.data.properties.slackUrl.pattern).toMatch(/^\^https/);
    expect(s.properties.name.minLength).toBe(1);
    expect((await h.call('GET', 'schemas/ContainerRegistries/AWS_ECR')).body[0].properties.data.required).toContain('awsAuthType');
    expect((await h.call('GET', 'schemas/AlertChannels/Nope')).status).toBe(404);
    expect((await h.call('GET', 'schemas/Nope')).status).toBe(404);
  });
});

describe('AuditLogs', () => {
  it('records every successful write of the account, and nothing for reads or refusals', async () => {
    const c = (await h.call('POST', 'AlertChannels', { body: slack('ops') })).body.data;
    await h.call('PATCH', `AlertChannels/${c.intgGuid}`, { body: { enabled: 0 } });
    await h.call('POST', 'AlertChannels', { body: { name: 'bad' } });
    await h.call('GET', 'AlertChannels');
    await h.call('POST', 'AlertChannels', { body: slack('staging-one'), account: 'staging' });
    const logs = await h.call('GET', 'AuditLogs');
    expect(logs.status).toBe(200);
    expect(logs.body.data).toHaveLength(2);
    const rec = logs.body.data[0];
    expect(Object.keys(rec).sort()).toEqual(['accountName', 'createdTime', 'eventDescription', 'eventName', 'userAction', 'userName']);
    expect(rec).toMatchObject({ accountName: 'prod', userName: 'admin@example.com', userAction: 'create' });
    expect(rec.eventDescription).toContain(c.intgGuid);
    expect(rec.createdTime).toMatch(/Z$/);
    expect((await h.call('GET', 'AuditLogs', { account: 'staging' })).body.data).toHaveLength(1);
    const s = await h.call('POST', 'AuditLogs/search', { body: { filters: [{ field: 'userAction', expression: 'eq', value: 'update' }] } });
    expect(s.body.data).toHaveLength(1);
  });

  it('filters by startTime and endTime and refuses malformed times', async () => {
    await h.call('POST', 'AlertChannels', { body: slack('ops') });
    expect((await h.call('GET', 'AuditLogs?startTime=2000-01-01&endTime=2000-01-02T00')).body.data).toEqual([]);
    expect((await h.call('GET', 'AuditLogs?startTime=2000-01-01T00:00:00Z')).body.data).toHaveLength(1);
    const bad = await h.call('GET', 'AuditLogs?startTime=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('startTime');
    const t = await h.call('POST', 'AuditLogs/search', { body: { timeFilter: { startTime: '2999-01-01T00:00:00.000Z' } } });
    expect(t.body.data).toEqual([]);
  });
});
