// Issue 19, "export always validates and plans clean, on any account", through the real CLI: an
// emulated account shaped like the real service (predefined profiles LW_..., a custom profile
// extending one, a custom id with SVC_ that is no vendor prefix there, records with null members,
// every cloud account type with canary secrets, records in the older spellings, the newer rule
// filters, a value a format check of ours refuses) exports with exit 0, the export validates with
// exit 0, and the first plan on it has no changes (--detailed-exitcode 0). Every record is created
// through the emulator's API (no pass-through), so the emulator's own answers are what is exported.

import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { getAt } from '../../src/model/json-pointer.js';
import { CASES } from '../emulator/cloud-account-cases.js';
import { cli, oneLine, serviceEnv } from './harness.js';

const SLACK_URL = 'https://hooks.slack.com/services/T0/B0/real-account';
const OLDER = { 'X-Emulator-Spelling': 'older' };

type Emulator = Awaited<ReturnType<typeof startEmulator>>;

const tokens = new Map<Emulator, Promise<string>>();

/** The API as any client would call it (Content-Type on every call), with optional extra headers. */
async function api(emu: Emulator, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  if (!tokens.has(emu)) {
    const exchange = fetch(`${emu.url}/api/v2/access/tokens`, {
      method: 'POST',
      headers: { 'X-SVC-UAKS': emu.secret, 'Content-Type': 'application/json' },
      body: JSON.stringify({ keyId: emu.keyId, expiryTime: 3600 }),
    });
    tokens.set(emu, exchange.then((r) => r.json() as Promise<{ token: string }>).then((t) => t.token));
  }
  const res = await fetch(`${emu.url}/api/v2/${path}`, {
    method,
    headers: { Authorization: `Bearer ${await tokens.get(emu)}`, 'Content-Type': 'application/json', 'Account-Name': 'prod', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

async function files(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(root.length + 1)] = await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

// The GovCloud case holds a 9-digit account id (public examples use one): the service takes it, a
// format check of ours only warns, and export writes it as read.

describe('export of an account shaped like the real service', () => {
  let emu: Emulator;
  let dir: string;
  let out: string;
  let exported: { code: number; stdout: string; stderr: string };
  let serverTokens: string[];

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'], predefinedPrefix: 'LW_' });
    const slack = await api(emu, 'POST', 'AlertChannels', { name: 'slack', type: 'SlackChannel', enabled: 1, data: { slackUrl: SLACK_URL } });
    const jira = await api(emu, 'POST', 'AlertChannels', {
      name: 'jira',
      type: 'Jira',
      enabled: 1,
      data: { jiraType: 'JIRA_CLOUD', jiraUrl: 'https://x.atlassian.net', projectId: 'SEC', issueType: 'Bug', username: 'bot', apiToken: 'CANARY-jira', customTemplateFile: null, issueGrouping: null },
    });
    await api(emu, 'POST', 'AlertChannels', { name: 'mail-older', type: 'EmailUser', enabled: 1, data: { channelProps: { recipients: ['b@example.com', 'a@example.com'] } } }, OLDER);
    await api(emu, 'POST', 'AlertChannels', { name: 'mail-text', type: 'EmailUser', enabled: 1, data: { channelProps: { recipients: 'c@example.com' } } });
    await api(emu, 'POST', 'AlertRules', {
      type: 'Event',
      intgGuidList: [slack.data.intgGuid],
      filters: { name: 'newer', enabled: 1, severity: [1, 2], category: ['Policy'], subCategory: ['Compliance'], sources: ['AWS'] },
    });
    await api(
      emu,
      'POST',
      'AlertRules',
      { type: 'Event', intgGuidList: [jira.data.intgGuid], filters: { name: 'older', description: 'camel', enabled: 0, severity: [3], eventCategory: ['User', 'Cloud'], resourceGroups: [] } },
      OLDER,
    );
    const template = { name: 'Changed', eventName: 'File changed', subject: '{{PATH}} changed', description: '{{_OCCURRENCE}} on {{MID}}' };
    await api(emu, 'POST', 'AlertProfiles', { alertProfileId: 'CUSTOM_FILES', extends: 'LW_HE_FILES_DEFAULT_PROFILE', alerts: [template] });
    await api(emu, 'POST', 'AlertProfiles', { alertProfileId: 'SVC_OURS', extends: 'LW_CFG_AWS_DEFAULT_PROFILE', alerts: [{ ...template, subject: '{{RESOURCE_ID}}', description: '{{_OCCURRENCE}}' }] });
    for (const [type, c] of Object.entries(CASES)) await api(emu, 'POST', 'CloudAccounts', { name: type, type, enabled: 1, data: c.data });
    await api(emu, 'POST', 'CloudAccounts', { name: 'aws-null', type: 'AwsCfg', enabled: 1, data: { ...CASES.AwsCfg.data, awsAccountId: null } });
    await api(emu, 'POST', 'ContainerRegistries', { name: 'hub', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'DOCKERHUB', credentials: { username: 'u', password: 'CANARY-hub' } } });
    await api(emu, 'POST', 'ContainerRegistries', { name: 'inline', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'INLINE_SCANNER', limitNumScan: 60 } }, OLDER);
    serverTokens = [...(await api(emu, 'GET', 'CloudAccounts')).data, ...(await api(emu, 'GET', 'ContainerRegistries')).data].flatMap((r: { serverToken?: { serverToken: string } }) => (r.serverToken ? [r.serverToken.serverToken] : []));

    dir = await mkdtemp(join(tmpdir(), 'postureops-real-account-'));
    out = join(dir, 'export');
    exported = await cli(['export', '--out', out, '--account', 'prod'], { env: serviceEnv(emu) });
  });
  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exports with exit 0: the LW_ prefix in postureops.yaml, custom profiles only, nulls and newer filters kept', async () => {
    expect(exported.code, exported.stderr).toBe(0);
    const written = await files(out);
    expect(written['postureops.yaml']).toMatch(/^predefinedProfilePrefix: LW_$/m);
    const profiles = written[join('prod', 'alert-profiles.yaml')];
    expect(profiles).toContain('name: CUSTOM_FILES');
    expect(profiles).toContain('extends: LW_HE_FILES_DEFAULT_PROFILE');
    expect(profiles).toContain('name: SVC_OURS');
    expect(profiles).not.toMatch(/^name: LW_/m);
    const channels = written[join('prod', 'alert-channels.yaml')];
    expect(channels).toContain('customTemplateFile: null');
    expect(channels).toContain('issueGrouping: null');
    expect(written[join('prod', 'cloud-accounts.yaml')]).toContain('awsAccountId: null');
    const rules = written[join('prod', 'alert-rules.yaml')];
    for (const text of ['category:', 'subCategory:', 'source:', 'name: older', '- User']) expect(rules).toContain(text);
    expect(written[join('prod', 'cloud-accounts.yaml')].match(/^kind: CloudAccount$/gm)?.length).toBeGreaterThanOrEqual(20);
  });

  it('writes no secret and no server token anywhere: files, stdout, stderr', async () => {
    const written = await files(out);
    expect(serverTokens).toHaveLength(3);
    for (const text of [...Object.values(written), exported.stdout, exported.stderr]) {
      expect(text).not.toContain('CANARY');
      expect(text).not.toContain(SLACK_URL);
      for (const t of serverTokens) expect(text).not.toContain(t);
    }
  });

  it('names the record whose value a format check refuses', () => {
    expect(oneLine(exported.stderr)).toMatch(/CloudAccount "AwsUsGovCfg" in account prod: /);
  });

  it('writes that value as read, with a warning', async () => {
    expect(oneLine(exported.stderr)).toMatch(/export-value-kept.*CloudAccount "AwsUsGovCfg" in account prod: spec\/data\/accessKeyCredentials\/accountId/);
    expect((await files(out))[join('prod', 'cloud-accounts.yaml')]).toMatch(/accountId: ["']123456789["']/);
  });

  it('validates with exit 0 and plans to no change (--detailed-exitcode 0)', async () => {
    // The variables SECRETS.md lists: compared ones with the live value, write-only ones with anything.
    const note = (await files(out))['SECRETS.md'];
    const live = [
      ...(await api(emu, 'GET', 'AlertChannels')).data,
      ...(await api(emu, 'GET', 'CloudAccounts')).data,
      ...(await api(emu, 'GET', 'ContainerRegistries')).data,
    ] as { name: string }[];
    const env: Record<string, string> = { ...serviceEnv(emu) };
    for (const m of note.matchAll(/\| `(SECRET_[A-Z0-9_]+)` \| \w+ \| ([\w-]+) \| `([^`]+)` \| (compared|write-only) \|/g)) {
      const [, variable, name, field, how] = m;
      const value = how === 'compared' ? getAt(live.find((r) => r.name === name) as never, field) : 'any-value';
      expect(typeof value, `${variable} (${name} ${field})`).toBe('string');
      env[variable] = value as string;
    }
    expect(Object.values(env)).toContain(SLACK_URL);

    const valid = await cli(['validate', out], { env });
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    const planned = await cli(['plan', out, '--detailed-exitcode'], { env });
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout + planned.stderr).not.toContain('CANARY');
  });
});
