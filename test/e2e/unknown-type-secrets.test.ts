// Issue 19, "secrets wherever they hide" and "never send back what was read masked", through the
// real CLI against the emulator. Records of types postureops does not know (a cloud account, an alert
// channel, a registry type) hold canary secrets in nested members: some the service returns in clear,
// some masked ("", "****"), one under a name that says nothing. No canary may appear in an exported
// file or in any output of export, validate, plan and apply, in any format; the export validates and
// plans to no change; and an update of the unknown-type record, after its secret members are removed
// from the file, sends no secret member and no masked or empty value (the emulator records the bodies).

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startEmulator, type ReceivedRequest, type RunningEmulator } from '../../src/emulator/index.js';
import { cli, type CliResult, filesBelow, memberNames, oneLine, rawApi, serviceEnv, stringsIn } from './harness.js';

const CANARY = /CANARY-\d+/;

const CLOUD = {
  name: 'future-cloud',
  type: 'FutureCloudCfg',
  enabled: 1,
  data: {
    tenantId: 'tenant-1',
    region: 'eu-1',
    note: '',
    credentials: { clientId: 'client-1', clientSecret: 'CANARY-1-client-secret', keyId: 'key-id-1' },
    auth: { signing: { hecToken: 'CANARY-2-hec-token', tokenUrl: 'https://login.example.com/token' } },
    x_api_key: 'CANARY-3-x-api-key',
    DB_PASSWD: 'CANARY-4-db-passwd',
    opaque: 'CANARY-5-opaque',
  },
};
const CHANNEL = {
  name: 'future-pager',
  type: 'FuturePagerCfg',
  enabled: 1,
  data: { service: { apiIntgKey: 'CANARY-6-intg-key', escalation: 'primary' }, severityMap: 'default' },
};
const REGISTRY = {
  name: 'quay',
  type: 'ContVulnCfg',
  enabled: 1,
  data: { registryType: 'QUAY_IO', registryDomain: 'quay.io', credentials: { username: 'robot', robotToken: 'CANARY-7-robot-token' } },
};




function expectNoCanary(result: CliResult, what: string): void {
  expect(result.stdout, `${what} stdout`).not.toMatch(CANARY);
  expect(result.stderr, `${what} stderr`).not.toMatch(CANARY);
}

describe('secrets of unknown types, end to end', () => {
  let emu: RunningEmulator;
  let dir: string;
  const received: ReceivedRequest[] = [];

  beforeAll(async () => {
    emu = await startEmulator({
      accounts: ['prod'],
      extraTypes: [
        // As the real service hides secrets: "" for one, a mask for others; the rest come back in clear.
        { collection: 'CloudAccounts', type: 'FutureCloudCfg', masked: { 'credentials.clientSecret': '', DB_PASSWD: '****', opaque: '*****pqe' } },
        { collection: 'AlertChannels', type: 'FuturePagerCfg' },
        { collection: 'ContainerRegistries', type: 'QUAY_IO' },
      ],
      onRequest: (r) => received.push(r),
    });
    for (const [collection, record] of [
      ['CloudAccounts', CLOUD],
      ['AlertChannels', CHANNEL],
      ['ContainerRegistries', REGISTRY],
    ] as const) {
      const created = await rawApi(emu, 'POST', `/api/v2/${collection}`, { account: 'prod', body: record });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    dir = await mkdtemp(join(tmpdir(), 'postureops-unknown-secrets-'));
  });
  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exports no canary, validates, plans to no change, and an update sends no secret member and no mask', async () => {
    const out = join(dir, 'export');
    const dotenv = join(dir, 'export.env');
    const exported = await cli(['export', '--out', out, '--account', 'prod', '--dotenv-out', dotenv], { env: serviceEnv(emu) });
    expect(exported.code, exported.stderr).toBe(0);
    expectNoCanary(exported, 'export');
    // The empty member of the unknown type is left out, and export says so.
    expect(oneLine(exported.stderr)).toMatch(/CloudAccount "future-cloud" in account prod: spec\/data\/note is empty/);

    for (const file of [...(await filesBelow(out)), dotenv]) expect(await readFile(file, 'utf8'), file).not.toMatch(CANARY);
    const clouds = parseAllDocuments(await readFile(join(out, 'prod', 'cloud-accounts.yaml'), 'utf8')).map((d) => d.toJS());
    const cloud = clouds.find((d) => d.name === 'future-cloud');
    // Every secret is a placeholder, whether the service showed it in clear, "", a mask, or under a plain name.
    for (const value of [
      cloud.spec.data.credentials.clientSecret,
      cloud.spec.data.auth.signing.hecToken,
      cloud.spec.data.x_api_key,
      cloud.spec.data.DB_PASSWD,
      cloud.spec.data.opaque,
    ]) {
      expect(value).toMatch(/^\$\{env:SECRET_[A-Z0-9_]+\}$/);
    }
    // What identifies a credential is carried as it is.
    expect(cloud.spec.data.credentials).toMatchObject({ clientId: 'client-1', keyId: 'key-id-1' });
    expect(cloud.spec.data.auth.signing.tokenUrl).toBe('https://login.example.com/token');
    expect(cloud.spec.data).not.toHaveProperty('note');
    const channels = await readFile(join(out, 'prod', 'alert-channels.yaml'), 'utf8');
    expect(channels).toMatch(/apiIntgKey: \$\{env:SECRET_/);
    const registries = await readFile(join(out, 'prod', 'container-registries.yaml'), 'utf8');
    expect(registries).toMatch(/robotToken: \$\{env:SECRET_/);

    // SECRETS.md lists each one as write-only; the environment gets values of its own (canaries too).
    const note = await readFile(join(out, 'SECRETS.md'), 'utf8');
    const rows = [...note.matchAll(/\| `(SECRET_[A-Z0-9_]+)` \| \w+ \| [\w-]+ \| `([^`]+)` \| (compared|write-only) \|/g)];
    expect(rows.map((m) => m[2]).sort()).toEqual(
      [
        '/data/DB_PASSWD',
        '/data/auth/signing/hecToken',
        '/data/credentials/clientSecret',
        '/data/credentials/robotToken',
        '/data/opaque',
        '/data/service/apiIntgKey',
        '/data/x_api_key',
      ].sort(),
    );
    expect(new Set(rows.map((m) => m[3]))).toEqual(new Set(['write-only']));
    const env: Record<string, string> = { ...serviceEnv(emu) };
    rows.forEach((m, i) => (env[m[1]] = `CANARY-${100 + i}-from-env`));

    const valid = await cli(['validate', out], { env });
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    expectNoCanary(valid, 'validate');

    const clean = await cli(['plan', out, '--detailed-exitcode', '--format', 'json'], { env });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expectNoCanary(clean, 'plan');

    // A literal secret in the unknown type is refused at file:line.
    const literal = join(dir, 'literal');
    await cp(out, literal, { recursive: true });
    const literalFile = join(literal, 'prod', 'cloud-accounts.yaml');
    const text = await readFile(literalFile, 'utf8');
    await writeFile(literalFile, text.replace(/x_api_key: \$\{env:[A-Z0-9_]+\}/, 'x_api_key: CANARY-9-literal'));
    const refused = await cli(['validate', literal, '--no-env'], { env });
    expect(refused.code).toBe(1);
    expect(oneLine(refused.stdout + refused.stderr)).toMatch(/cloud-accounts\.yaml:\d+.*secret-literal|secret-literal.*cloud-accounts\.yaml:\d+/);

    // Edit one plain member of the unknown-type record and remove its secret members from the file.
    const file = join(out, 'prod', 'cloud-accounts.yaml');
    const docs = parseAllDocuments(await readFile(file, 'utf8'));
    const doc = docs.find((d) => d.toJS().name === 'future-cloud')!;
    doc.setIn(['spec', 'data', 'region'], 'eu-2');
    for (const path of [
      ['credentials', 'clientSecret'],
      ['auth', 'signing', 'hecToken'],
      ['x_api_key'],
      ['DB_PASSWD'],
      ['opaque'],
    ]) {
      expect(doc.deleteIn(['spec', 'data', ...path])).toBe(true);
    }
    await writeFile(file, docs.map((d) => d.toString()).join('---\n'));

    received.length = 0;
    for (const format of ['text', 'json', 'markdown']) {
      const planned = await cli(['plan', out, '--format', format], { env });
      expect(planned.code, planned.stdout + planned.stderr).toBe(0);
      expectNoCanary(planned, `plan of the edit --format ${format}`);
    }
    const applied = await cli(['apply', out, '--auto-approve', '--format', 'json'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expectNoCanary(applied, 'apply');
    expect(JSON.parse(applied.stdout).summary).toMatchObject({ update: 1 });

    const writes = received.filter((r) => r.method !== 'GET' && !r.path.endsWith('/search') && !r.path.includes('/access/tokens') && !r.path.includes('Lease'));
    const updates = writes.filter((r) => r.path.startsWith('/api/v2/CloudAccounts/'));
    expect(updates).toHaveLength(1);
    const data = (updates[0].body as { data: Record<string, unknown> }).data;
    expect(data).toEqual({
      tenantId: 'tenant-1',
      region: 'eu-2',
      credentials: { clientId: 'client-1', keyId: 'key-id-1' },
      auth: { signing: { tokenUrl: 'https://login.example.com/token' } },
    });
    const names = memberNames(data);
    for (const secret of ['clientSecret', 'hecToken', 'x_api_key', 'DB_PASSWD', 'opaque', 'note']) expect(names).not.toContain(secret);
    for (const value of stringsIn(data)) expect(value).not.toMatch(/^$|\*\*\*|CANARY/);
    // Nothing sent during plan or apply carries a canary or a mask.
    for (const r of received) expect(JSON.stringify(r.body ?? null)).not.toMatch(/CANARY|\*\*\*\*/);

    const again = await cli(['plan', out, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });
});
