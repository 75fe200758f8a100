// Issue 19's proof in one account: it holds every type and shape the service is known to return
// (api-facts.md): every alert channel type, all 19 cloud account types, every registry flavour,
// resource groups of every resource type and the default ones, alert rules in the newer and the older
// spellings, report rules, agent tokens, custom profiles on a service whose predefined profiles are
// LW_..., members set to null, and records of types postureops has never seen, whose secrets (canaries)
// hide in nested members under many spellings, shown in clear, empty or masked. Through the real CLI:
// export (exit 0), validate the export (exit 0), plan it (no change), then edit an unknown-type record
// and remove its secret members from the file: the update the service receives carries no secret
// member, no canary and no masked or empty value. No canary appears in any file or output.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { createClient } from '../../src/api/index.js';
import { startEmulator, type ReceivedRequest, type RunningEmulator } from '../../src/emulator/index.js';
import { getAt } from '../../src/model/json-pointer.js';
import { CASES } from '../emulator/cloud-account-cases.js';
import { seedService } from '../engine/export-seed.js';
import { cli, type CliResult, filesBelow, memberNames, oneLine, rawApi, serviceEnv, stringsIn } from './harness.js';

const CANARY = /CANARY-[\w-]+/;
const OLDER = { 'X-Emulator-Spelling': 'older' };

const UNKNOWN_CLOUD = {
  name: 'never-seen-cloud',
  type: 'NeverSeenCfg',
  enabled: 1,
  data: {
    region: 'eu-1',
    credentials: { clientId: 'client-9', client_secret: 'CANARY-u1', keyId: 'kid-9' },
    signing: { 'signing-key': 'CANARY-u2', privateKeyPem: 'CANARY-u3', tokenUrl: 'https://login.example.com/t' },
    API_KEY: 'CANARY-u4',
    passphrase: 'CANARY-u5',
    insertKey: 'CANARY-u6',
    serviceAccount: { password: 'CANARY-u7', user: 'svc' },
  },
};
const UNKNOWN_CHANNEL = { name: 'never-seen-pager', type: 'NeverSeenPager', enabled: 1, data: { routing: { apiToken: 'CANARY-u8', team: 'sec' } } };
const UNKNOWN_REGISTRY = { name: 'never-seen-registry', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'NEVER_SEEN', credentials: { username: 'robot', accessToken: 'CANARY-u9' } } };




describe('an account holding every type and shape, through export, validate, plan and apply', () => {
  let emu: RunningEmulator;
  let dir: string;
  const received: ReceivedRequest[] = [];
  const outputs: CliResult[] = [];
  const run = async (args: string[], env: Record<string, string>): Promise<CliResult> => {
    const result = await cli(args, { env });
    outputs.push(result);
    return result;
  };

  beforeAll(async () => {
    emu = await startEmulator({
      accounts: ['prod'],
      predefinedPrefix: 'LW_',
      extraTypes: [
        { collection: 'CloudAccounts', type: 'NeverSeenCfg', masked: { 'credentials.client_secret': '', passphrase: '****', 'serviceAccount.password': '' } },
        { collection: 'AlertChannels', type: 'NeverSeenPager', masked: { 'routing.apiToken': '********' } },
        { collection: 'ContainerRegistries', type: 'NEVER_SEEN' },
      ],
      onRequest: (r) => received.push(r),
    });
    const client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret });
    try {
      // Every channel type, registry flavour, group type, rules, report rules, tokens and profiles.
      await seedService(client, ['prod'], { perKindPerAccount: 18, predefinedPrefix: 'LW_' });
    } finally {
      await client.close();
    }
    const post = async (collection: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${emu.url}/api/v2/${collection}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await token()}`, 'Content-Type': 'application/json', 'Account-Name': 'prod', ...headers },
        body: JSON.stringify(body),
      });
      expect(res.status, `${collection}: ${await res.clone().text()}`).toBe(201);
      return ((await res.json()) as { data: Record<string, unknown> }).data;
    };
    let bearer: string | undefined;
    const token = async () =>
      (bearer ??= (
        (await (
          await fetch(`${emu.url}/api/v2/access/tokens`, {
            method: 'POST',
            headers: { 'X-SVC-UAKS': emu.secret, 'Content-Type': 'application/json' },
            body: JSON.stringify({ keyId: emu.keyId, expiryTime: 3600 }),
          })
        ).json()) as { token: string }
      ).token);
    // The 19 cloud account types (canary secrets), a null member, older spellings, newer rule filters.
    for (const [type, c] of Object.entries(CASES)) await post('CloudAccounts', { name: `case-${type}`, type, enabled: 1, data: c.data });
    await post('CloudAccounts', { name: 'aws-null', type: 'AwsCfg', enabled: 1, data: { ...CASES.AwsCfg.data, awsAccountId: null } });
    const mail = await post('AlertChannels', { name: 'mail-older', type: 'EmailUser', enabled: 1, data: { channelProps: { recipients: ['b@example.com', 'a@example.com'] } } }, OLDER);
    await post('AlertRules', { type: 'Event', intgGuidList: [mail.intgGuid], filters: { name: 'older-rule', enabled: 1, severity: [2], eventCategory: ['Cloud'], resourceGroups: [] } }, OLDER);
    await post('AlertRules', { type: 'Event', intgGuidList: [mail.intgGuid], filters: { name: 'newer-rule', enabled: 1, severity: [1], category: ['Policy'], subCategory: ['Compliance'], sources: ['AWS'] } });
    await post('ContainerRegistries', { name: 'inline-older', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'INLINE_SCANNER', limitNumScan: 60 } }, OLDER);
    // Types postureops has never seen.
    await post('CloudAccounts', UNKNOWN_CLOUD);
    await post('AlertChannels', UNKNOWN_CHANNEL);
    await post('ContainerRegistries', UNKNOWN_REGISTRY);
    dir = await mkdtemp(join(tmpdir(), 'postureops-every-shape-'));
  });
  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exports, validates with exit 0, plans to no change, and an edited unknown-type record sends no secret', async () => {
    const out = join(dir, 'export');
    const exported = await run(['export', '--out', out, '--account', 'prod'], serviceEnv(emu));
    expect(exported.code, exported.stderr).toBe(0);
    const files = await filesBelow(out);
    for (const file of files) expect(await readFile(file, 'utf8'), file).not.toMatch(CANARY);
    expect(await readFile(join(out, 'postureops.yaml'), 'utf8')).toMatch(/^predefinedProfilePrefix: LW_$/m);
    // Resource groups are referred to by name: no group GUID in any file.
    const groups = (await rawApi(emu, 'GET', '/api/v2/ResourceGroups', { account: 'prod' })).body.data as { resourceGroupGuid?: string; guid?: string }[];
    const guids = groups.map((g) => g.resourceGroupGuid ?? g.guid).filter((g): g is string => typeof g === 'string');
    expect(guids.length).toBeGreaterThan(7);
    for (const file of files) for (const guid of guids) expect(await readFile(file, 'utf8'), `${file} holds ${guid}`).not.toContain(guid);

    // The variables SECRETS.md lists: values the service returns in clear get the live value, write-only ones any value.
    const note = await readFile(join(out, 'SECRETS.md'), 'utf8');
    const live = [
      ...(await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data,
      ...(await rawApi(emu, 'GET', '/api/v2/CloudAccounts', { account: 'prod' })).body.data,
      ...(await rawApi(emu, 'GET', '/api/v2/ContainerRegistries', { account: 'prod' })).body.data,
    ] as { name: string }[];
    const env: Record<string, string> = { ...serviceEnv(emu) };
    for (const m of note.matchAll(/\| `(SECRET_[A-Z0-9_]+)` \| \w+ \| ([^|]+?) \| `([^`]+)` \| (compared|write-only) \|/g)) {
      const [, variable, name, field, how] = m;
      const value = how === 'compared' ? getAt(live.find((r) => r.name === name) as never, field) : `CANARY-env-${variable}`;
      expect(typeof value, `${variable} (${name} ${field})`).toBe('string');
      env[variable] = value as string;
    }
    // Every unknown-type secret is a write-only variable.
    for (const pointer of ['/data/credentials/client_secret', '/data/signing/signing-key', '/data/signing/privateKeyPem', '/data/API_KEY', '/data/passphrase', '/data/insertKey', '/data/serviceAccount/password'])
      expect(note, pointer).toMatch(new RegExp(`never-seen-cloud \\| \`${pointer}\` \\| write-only`));

    expect((await run(['validate', out], env)).code, outputs.at(-1)!.stdout + outputs.at(-1)!.stderr).toBe(0);
    const planned = await run(['plan', out, '--detailed-exitcode'], env);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    for (const format of ['json', 'markdown']) expect((await run(['plan', out, '--format', format], env)).code).toBe(0);

    // Edit one member of the unknown-type record and remove its secret members from the file.
    const file = join(out, 'prod', 'cloud-accounts.yaml');
    const docs = parseAllDocuments(await readFile(file, 'utf8')).map((d) => d.toJS());
    const doc = docs.find((d) => d.name === 'never-seen-cloud');
    doc.spec.data = { region: 'eu-2', credentials: { clientId: 'client-9', keyId: 'kid-9' }, signing: { tokenUrl: 'https://login.example.com/t' }, serviceAccount: { user: 'svc' } };
    await writeFile(file, docs.map((d) => stringify(d)).join('---\n'));
    // The plan says which hidden members the update leaves out, and how to keep them.
    const edited = JSON.parse((await run(['plan', out, '--format', 'json'], env)).stdout);
    const update = edited.changes.find((c: { name: string }) => c.name === 'never-seen-cloud');
    expect(update.action).toBe('update');
    expect(update.withheld).toEqual(expect.arrayContaining(['/data/API_KEY', '/data/credentials/client_secret', '/data/passphrase', '/data/serviceAccount/password']));
    expect(oneLine((await run(['plan', out], env)).stdout)).toMatch(/leaves out .*\/data\/passphrase.*give them as \$\{env:NAME\} to keep them/);
    received.length = 0;
    const applied = await run(['apply', out, '--auto-approve'], env);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const writes = received.filter((r) => r.method !== 'GET' && r.path.startsWith('/api/v2/CloudAccounts/') && !r.path.endsWith('/search'));
    expect(writes).toHaveLength(1);
    const body = writes[0].body as { data: Record<string, unknown> };
    expect(body.data.region).toBe('eu-2');
    for (const secretName of ['client_secret', 'signing-key', 'privateKeyPem', 'API_KEY', 'passphrase', 'insertKey', 'password']) expect(memberNames(body), secretName).not.toContain(secretName);
    for (const value of stringsIn(body)) {
      expect(value).not.toMatch(CANARY);
      expect(value).not.toMatch(/^\*+$/);
      expect(value).not.toBe('');
    }
    // Nothing else was written: the rest of the account planned clean.
    expect(received.filter((r) => r.method !== 'GET' && !r.path.includes('AlertProfiles') && !r.path.endsWith('/search') && r.path !== '/api/v2/access/tokens').map((r) => `${r.method} ${r.path}`)).toEqual([`PATCH ${writes[0].path}`]);

    for (const o of outputs) {
      expect(o.stdout).not.toMatch(CANARY);
      expect(o.stderr).not.toMatch(CANARY);
    }
  });
});
