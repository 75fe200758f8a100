// The emulator as wide as the public client (issue 19): the 19 cloud account types with their shapes
// and write-only secrets, the agentless scanners' serverToken, the newer rule filters, Content-Type on
// every request, the older spellings, null members, and the predefined profiles of another vendor prefix.

import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { CLOUD_ACCOUNT_TYPES } from '../../src/emulator/spellings.js';
import { CASES, GCP, ROLE } from './cloud-account-cases.js';
import { boot, parse, slack, type Harness } from './helpers.js';

let h: Harness;
afterEach(() => h?.close());

describe('the 19 cloud account types', () => {
  it('covers every type the emulator knows', () => {
    expect(Object.keys(CASES).sort()).toEqual([...CLOUD_ACCOUNT_TYPES].sort());
  });

  it('creates each with its secrets and reads it back with the write-only ones masked, nowhere in any answer', async () => {
    h = await boot();
    for (const [type, c] of Object.entries(CASES)) {
      const created = await h.call('POST', 'CloudAccounts', { body: { name: type, type, enabled: 1, data: c.data } });
      expect(created.status, `${type}: ${JSON.stringify(created.body)}`).toBe(201);
      expect(created.body.data.data, type).toEqual(c.shown);
    }
    const texts = [
      JSON.stringify((await h.call('GET', 'CloudAccounts')).body),
      JSON.stringify((await h.call('POST', 'CloudAccounts/search', { body: {} })).body),
      ...(await Promise.all(['AzureSidekick', 'OciCfg', 'GcpSidekick'].map(async (t) => JSON.stringify((await h.call('GET', `CloudAccounts/${t}`)).body)))),
    ];
    const listed = JSON.parse(texts[0]).data as { type: string; data: unknown }[];
    expect(listed).toHaveLength(19);
    for (const r of listed) expect(r.data, r.type).toEqual(CASES[r.type].shown);
    for (const text of texts) expect(text).not.toContain('CANARY');
    // Not bold in api-facts.md for the newer GCP types: privateKeyId comes back as written.
    expect(texts[0]).toContain('kid-gcpside');
  });

  it('issues a serverToken to the agentless scanners only, kept across updates', async () => {
    h = await boot();
    const side = await h.call('POST', 'CloudAccounts', { body: { name: 's', type: 'AwsSidekick', enabled: 1, data: CASES.AwsSidekick.data } });
    expect(side.body.data.serverToken).toEqual({ serverToken: expect.stringMatching(/^[0-9a-f]{64}$/), uri: expect.stringContaining(h.emu.url) });
    const patched = await h.call('PATCH', `CloudAccounts/${side.body.data.intgGuid}`, { body: { enabled: 0 } });
    expect(patched.body.data.serverToken).toEqual(side.body.data.serverToken);
    const cfg = await h.call('POST', 'CloudAccounts', { body: { name: 'c', type: 'AwsCfg', enabled: 1, data: CASES.AwsCfg.data } });
    expect(cfg.body.data.serverToken).toBeUndefined();
    const changed = await h.call('PUT', `CloudAccounts/${cfg.body.data.intgGuid}`, { body: { name: 'c', type: 'AwsSidekickOrg', enabled: 1, data: CASES.AwsSidekickOrg.data } });
    expect(changed.body.data.serverToken.serverToken).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a newer type without its credential, and takes the members the public clients leave out', async () => {
    h = await boot();
    const oci = await h.call('POST', 'CloudAccounts', { body: { name: 'o', type: 'OciCfg', enabled: 1, data: { ...CASES.OciCfg.data, credentials: { fingerprint: 'aa' } } } });
    expect(oci.status).toBe(400);
    expect(oci.body.message).toContain('data/credentials/privateKey: required');
    const { privateKeyId: _omitted, ...noKeyId } = GCP('x');
    const gcp = await h.call('POST', 'CloudAccounts', { body: { name: 'g', type: 'GcpCfg', enabled: 1, data: { credentials: noKeyId, idType: 'PROJECT', id: 'p' } } });
    expect(gcp.status).toBe(201);
    const level = await h.call('POST', 'CloudAccounts', { body: { name: 'a', type: 'AzureSidekick', enabled: 1, data: { ...CASES.AzureSidekick.data, integrationLevel: 'GALAXY' } } });
    expect(level.status).toBe(400);
  });

  it('stores a null optional member as the live service holds it, and refuses null where a value is required', async () => {
    h = await boot();
    const aws = await h.call('POST', 'CloudAccounts', { body: { name: 'n', type: 'AwsCfg', enabled: 1, data: { ...CASES.AwsCfg.data, awsAccountId: null } } });
    expect(aws.status).toBe(201);
    expect(aws.body.data.data.awsAccountId).toBeNull();
    const jira = await h.call('POST', 'AlertChannels', {
      body: {
        name: 'j',
        type: 'Jira',
        enabled: 1,
        data: { jiraType: 'JIRA_CLOUD', jiraUrl: 'https://x.atlassian.net', projectId: 'P', issueType: 'Bug', username: 'u', apiToken: 't', issueGrouping: null, customTemplateFile: null },
      },
    });
    expect(jira.status).toBe(201);
    expect(jira.body.data.data).toMatchObject({ issueGrouping: null, customTemplateFile: null });
    const missing = await h.call('POST', 'CloudAccounts', { body: { name: 'm', type: 'AwsCfg', enabled: 1, data: { crossAccountCredentials: { ...ROLE, roleArn: null } } } });
    expect(missing.status).toBe(400);
  });
});

describe('the newer alert rule filters', () => {
  it('stores category, subCategory and source/sources, answers them in the spelling written, sorted', async () => {
    h = await boot();
    const ch = (await h.call('POST', 'AlertChannels', { body: slack('s') })).body.data.intgGuid;
    const rule = { type: 'Event', intgGuidList: [ch], filters: { name: 'r', enabled: 1, severity: [1], category: ['Policy', 'Anomaly'], subCategory: ['Compliance'], sources: ['GCP', 'AWS'] } };
    const created = await h.call('POST', 'AlertRules', { body: rule });
    expect(created.status).toBe(201);
    const id = created.body.data.mcGuid;
    expect((await h.call('GET', `AlertRules/${id}`)).body.data.filters).toMatchObject({ category: ['Anomaly', 'Policy'], subCategory: ['Compliance'], sources: ['AWS', 'GCP'] });
    // A PATCH that names other filters keeps them; one that sets `source` answers in that spelling.
    const kept = await h.call('PATCH', `AlertRules/${id}`, { body: { filters: { severity: [2] } } });
    expect(kept.body.data.filters).toMatchObject({ severity: [2], category: ['Anomaly', 'Policy'], sources: ['AWS', 'GCP'] });
    const respelt = await h.call('PATCH', `AlertRules/${id}`, { body: { filters: { source: ['Kubernetes'] } } });
    expect(respelt.body.data.filters.source).toEqual(['Kubernetes']);
    expect(respelt.body.data.filters.sources).toBeUndefined();
    // A rule that never had them shows none; null for an array filter is refused (api-facts.md).
    const plain = await h.call('POST', 'AlertRules', { body: { ...rule, filters: { name: 'p', severity: [1] } } });
    expect(Object.keys(plain.body.data.filters)).not.toContain('category');
    const nul = await h.call('PATCH', `AlertRules/${id}`, { body: { filters: { category: null } } });
    expect(nul.status).toBe(400);
  });
});

describe('Content-Type on every request (seed 001, common rule 1)', () => {
  it('refuses a request without it, body or not, token creation too, with a message that says so', async () => {
    h = await boot();
    const bare = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      fetch(`${h.emu.url}/api/v2/${path}`, { method, headers: { Authorization: `Bearer ${h.token}`, ...headers }, body }).then(parse);
    for (const [method, path] of [
      ['GET', 'AlertChannels'],
      ['GET', 'AlertProfiles'],
      ['DELETE', 'AlertChannels/PROD_X'],
      ['POST', 'AlertRules/search'],
    ]) {
      const r = await bare(method, path);
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body.message).toMatch(/Content-Type must be application\/json/);
    }
    expect((await bare('GET', 'AlertChannels', { 'Content-Type': 'text/plain' })).status).toBe(400);
    expect((await bare('GET', 'AlertChannels', { 'Content-Type': 'application/json; charset=utf-8' })).status).toBe(200);
    const token = await fetch(`${h.emu.url}/api/v2/access/tokens`, { method: 'POST', headers: { 'X-SVC-UAKS': h.emu.secret }, body: JSON.stringify({ keyId: h.emu.keyId }) }).then(parse);
    expect(token.status).toBe(400);
    expect(token.body.message).toContain('Content-Type');
    // Without a token it is a 401 first; the emulator's own OpenAPI page stays readable in a browser.
    expect((await fetch(`${h.emu.url}/api/v2/AlertChannels`).then(parse)).status).toBe(401);
    expect((await fetch(`${h.emu.url}/api/v2/docs`)).status).toBe(200);
  });
});

describe('the older spellings', () => {
  const older = { 'X-Emulator-Spelling': 'older' };

  it('answers a rule created so with camelCase filters and a top-level name, beside current ones', async () => {
    h = await boot();
    const ch = (await h.call('POST', 'AlertChannels', { body: slack('s') })).body.data.intgGuid;
    const body = (name: string) => ({ type: 'Event', intgGuidList: [ch], filters: { name, severity: [1], eventCategory: ['User', 'Cloud'], resourceGroups: ['RG_1'] } });
    await h.call('POST', 'AlertRules', { body: body('old'), headers: older });
    await h.call('POST', 'AlertRules', { body: body('new') });
    const [old, cur] = (await h.call('GET', 'AlertRules')).body.data;
    expect(old.name).toBe('old');
    expect(old.filters).toMatchObject({ name: 'old', eventCategory: ['Cloud', 'User'], resourceGroups: ['RG_1'] });
    expect(old.filters.eventcategory).toBeUndefined();
    expect(cur.name).toBeUndefined();
    expect(cur.filters).toMatchObject({ eventcategory: ['Cloud', 'User'], resourcegroups: ['RG_1'] });
  });

  it('EmailUser recipients as one comma-separated string; INLINE_SCANNER limitNumScan as a string; Docker Hub with its domain', async () => {
    h = await boot();
    const mail = (recipients: unknown) => ({ name: 'm', type: 'EmailUser', enabled: 1, data: { channelProps: { recipients } } });
    const asList = await h.call('POST', 'AlertChannels', { body: mail(['a@example.com', 'b@example.com']), headers: older });
    expect(asList.body.data.data.channelProps.recipients).toBe('a@example.com, b@example.com');
    const asText = await h.call('POST', 'AlertChannels', { body: mail('c@example.com,d@example.com') });
    expect(asText.body.data.data.channelProps.recipients).toBe('c@example.com,d@example.com');
    expect((await h.call('POST', 'AlertChannels', { body: mail('not an address') })).status).toBe(400);
    const current = await h.call('POST', 'AlertChannels', { body: mail(['e@example.com']) });
    expect(current.body.data.data.channelProps.recipients).toEqual(['e@example.com']);

    const inline = (limitNumScan: unknown, headers?: Record<string, string>) =>
      h.call('POST', 'ContainerRegistries', { body: { name: 'i', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'INLINE_SCANNER', limitNumScan } }, headers });
    expect((await inline(60, older)).body.data.data.limitNumScan).toBe('60');
    expect((await inline('60')).body.data.data.limitNumScan).toBe('60');
    const plain = await inline(60);
    expect(plain.body.data.data.limitNumScan).toBe(60);
    // A scanner reports with a token the service issues.
    expect(plain.body.data.serverToken.serverToken).toMatch(/^[0-9a-f]{64}$/);
    const hub = await h.call('POST', 'ContainerRegistries', { body: { name: 'h', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'DOCKERHUB', credentials: { username: 'u', password: 'p' } } } });
    expect(hub.body.data.data.registryDomain).toBe('index.docker.io');
    expect(hub.body.data.serverToken).toBeUndefined();
  });
});

describe('predefined profiles of another vendor prefix', () => {
  it('lists LW_ profiles, reserves LW_ for them, and lets a custom profile extend one', async () => {
    h = await boot({ predefinedPrefix: 'LW_' });
    const ids = (await h.call('GET', 'AlertProfiles')).body.data.map((p: { alertProfileId: string }) => p.alertProfileId);
    expect(ids).toContain('LW_BASE_PROFILE');
    expect(ids).toContain('LW_HE_FILES_DEFAULT_PROFILE');
    expect(ids.filter((i: string) => i.startsWith('SVC_'))).toEqual([]);
    const profile = (alertProfileId: string, base: string) => ({
      alertProfileId,
      extends: base,
      alerts: [{ name: 'T', eventName: 'e', subject: '{{PATH}}', description: '{{_OCCURRENCE}}' }],
    });
    expect((await h.call('POST', 'AlertProfiles', { body: profile('LW_MINE', 'LW_HE_FILES_DEFAULT_PROFILE') })).status).toBe(400);
    expect((await h.call('POST', 'AlertProfiles', { body: profile('MINE', 'LW_BASE_PROFILE') })).status).toBe(400);
    expect((await h.call('POST', 'AlertProfiles', { body: profile('MINE', 'SVC_HE_FILES_DEFAULT_PROFILE') })).status).toBe(400);
    const made = await h.call('POST', 'AlertProfiles', { body: profile('MINE', 'LW_HE_FILES_DEFAULT_PROFILE') });
    expect(made.status).toBe(201);
    expect(made.body.data[0].descriptionKeys.map((k: { name: string }) => k.name)).toContain('PATH');
    // SVC_ is no vendor prefix here: a custom id may use it.
    expect((await h.call('POST', 'AlertProfiles', { body: profile('SVC_OURS', 'LW_HE_FILES_DEFAULT_PROFILE') })).status).toBe(201);
    expect((await h.call('DELETE', 'AlertProfiles/LW_HE_FILES_DEFAULT_PROFILE')).status).toBe(403);
  });

  it('refuses a prefix that is not letters and digits ending in _', async () => {
    await expect(startEmulator({ predefinedPrefix: 'lw-' })).rejects.toThrow(/predefinedPrefix/);
  });
});
