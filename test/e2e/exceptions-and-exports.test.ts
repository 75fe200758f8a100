// Issue 33's two kinds through the real CLI against the emulator: vulnerability exceptions and data
// export rules go from YAML to the service and plan clean the second time; a console edit shows as
// drift with its author; the account exports to a repository that validates and plans clean; an S3
// channel a live export rule uses is not deleted, and deletes run rule first, channel last; a rule
// naming a live channel of another type is refused; an expired exception is a warning at validate.

import { readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { makeRepo, tempDir } from '../config/helpers.js';
import { cli, oneLine, rawApi, serviceEnv } from './harness.js';

const ROOT = 'accounts:\n  - name: prod\n';
const LAKE = `kind: AlertChannel
name: lake
spec:
  type: AwsS3
  data:
    s3CrossAccountCredentials:
      roleArn: arn:aws:iam::123456789012:role/export
      externalId: ext-1
      bucketArn: arn:aws:s3:::lake
`;
const EXPORT = `kind: DataExportRule
name: to-lake
spec:
  description: everything
  channels: [lake]
`;
const EXCEPTIONS = `kind: VulnerabilityException
name: webp
spec:
  type: Container
  reason: Accepted Risk
  description: not reachable
  criteria:
    cves: [CVE-2023-4863]
    packages:
      - {name: libwebp, version: 1.3.0}
      - {name: zlib, version: "1.2"}
      - {name: libwebp, version: 1.2.4}
    severities: [High, Critical]
    fixable: true
  scope:
    registry: [ghcr.io]
    repository: [shop/front]
  expiry: "2040-01-01T02:00:00+02:00"
---
kind: VulnerabilityException
name: build-hosts
spec:
  type: Host
  reason: Fix Pending
  enabled: false
  criteria:
    severities: [Low]
  scope:
    hostname: [build-01]
`;
const SECOND = { keyId: 'SECONDKEY', secret: 'second-secret', role: 'org-admin' as const, user: 'console@example.com' };

let emu: RunningEmulator;
let env: Record<string, string>;
let dir: string;

const guidOf = async (collection: string, name: string, member: string): Promise<string> => {
  const list = await rawApi(emu, 'GET', `/api/v2/${collection}`, { account: 'prod' });
  return list.body.data.find((r: Record<string, any>) => (r.exceptionName ?? r.filters?.name ?? r.name) === name)[member] as string;
};

beforeAll(async () => {
  emu = await startEmulator({ accounts: ['prod'], keys: [SECOND] });
  env = serviceEnv(emu);
  dir = await makeRepo({ 'postureops.yaml': ROOT, 'lake.yaml': LAKE, 'export.yaml': EXPORT, 'exceptions.yaml': EXCEPTIONS });
});

afterAll(async () => {
  await emu?.close();
});

// One account's story, step after step: the order of these tests is the story's, also when the suite is shuffled.
describe('vulnerability exceptions and data export rules, end to end', { shuffle: false }, () => {
  it('plans the creates (channel before its export rule) with their budget, applies them, and plans clean', async () => {
    const planned = await cli(['plan', dir, '--format', 'json'], { env });
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout);
    expect(plan.changes.map((c: { action: string; kind: string; name: string }) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'create AlertChannel lake',
      'create DataExportRule to-lake',
      'create VulnerabilityException build-hosts',
      'create VulnerabilityException webp',
    ]);
    const needed = Object.fromEntries(plan.budget.map((b: { bucket: string; needed: number }) => [b.bucket, b.needed]));
    expect(needed).toMatchObject({ 'POST AlertChannels': 1, 'POST DataExportRules': 1, 'POST VulnerabilityExceptions': 2 });

    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const again = await cli(['plan', dir, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);

    // As the service keeps them: the versions of a name grouped, fixable [1], the expiry as sent (UTC).
    const webp = (await rawApi(emu, 'GET', `/api/v2/VulnerabilityExceptions/${await guidOf('VulnerabilityExceptions', 'webp', 'exceptionGuid')}`, { account: 'prod' })).body.data;
    expect(webp.vulnerabilityCriteria).toEqual({ cve: ['CVE-2023-4863'], package: [{ libwebp: ['1.2.4', '1.3.0'] }, { zlib: ['1.2'] }], severity: ['Critical', 'High'], fixable: [1] });
    expect(webp.expiryTime).toBe('2040-01-01T00:00:00Z');
    const rule = (await rawApi(emu, 'GET', `/api/v2/DataExportRules/${await guidOf('DataExportRules', 'to-lake', 'mcGuid')}`, { account: 'prod' })).body.data;
    expect(rule.intgGuidList).toEqual([await guidOf('AlertChannels', 'lake', 'intgGuid')]);
  });

  it('shows console edits as drift, with who made them, and brings them back', async () => {
    const console = { url: emu.url, keyId: SECOND.keyId, secret: SECOND.secret };
    const veId = await guidOf('VulnerabilityExceptions', 'webp', 'exceptionGuid');
    const ruleId = await guidOf('DataExportRules', 'to-lake', 'mcGuid');
    const edited = await rawApi(console, 'PATCH', `/api/v2/VulnerabilityExceptions/${veId}`, {
      account: 'prod',
      body: { vulnerabilityCriteria: { cve: ['CVE-2023-4863', 'CVE-2024-0001'], package: [{ libwebp: ['1.3.0', '1.2.4'] }, { zlib: ['1.2'] }], severity: ['High', 'Critical'], fixable: [1] } },
    });
    expect(edited.status).toBe(200);
    expect((await rawApi(console, 'PATCH', `/api/v2/DataExportRules/${ruleId}`, { account: 'prod', body: { filters: { enabled: 0 } } })).status).toBe(200);

    const planned = await cli(['plan', dir], { env });
    expect(planned.code, planned.stderr).toBe(0);
    const text = oneLine(planned.stdout);
    expect(text).toMatch(new RegExp(`~ update DataExportRule to-lake \\[${ruleId}\\] .* last changed by console@example\\.com`));
    expect(text).toMatch(new RegExp(`~ update VulnerabilityException webp \\[${veId}\\] .* last changed by console@example\\.com`));
    expect(text).toContain('CVE-2024-0001');
    expect(text).toContain('Plan: 0 to create, 2 to update, 0 to replace, 0 to delete.');
    // --attribute: the audit log's entries under each drifted record, the console's edit first.
    const attributed = oneLine((await cli(['plan', dir, '--attribute'], { env })).stdout);
    expect(attributed).toMatch(new RegExp(`audit log: \\S+ console@example\\.com update: Updated vulnerability exception webp \\(${veId}\\)`));
    expect(attributed).toMatch(new RegExp(`audit log: \\S+ console@example\\.com update: Updated data export rule to-lake \\(${ruleId}\\)`));

    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });

  it('exports the account to a repository that validates and plans clean', async () => {
    const out = join(await tempDir(), 'exported');
    const exported = await cli(['export', '--out', out, '--account', 'prod'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    const exceptions = await readFile(join(out, 'prod', 'vulnerability-exceptions.yaml'), 'utf8');
    expect(exceptions).toContain('kind: VulnerabilityException');
    expect(exceptions).toContain('expiry: 2040-01-01T00:00:00Z');
    expect(exceptions).toContain('    packages:\n      - name: libwebp\n        version: 1.2.4\n      - name: libwebp\n        version: 1.3.0\n');
    expect(await readFile(join(out, 'prod', 'data-export-rules.yaml'), 'utf8')).toContain('name: to-lake\naccount: prod\nspec:\n  channels:\n    - lake\n  description: everything\n');
    const validated = await cli(['validate', out], { env });
    expect(validated.code, validated.stdout + validated.stderr).toBe(0);
    const planned = await cli(['plan', out, '--detailed-exitcode'], { env });
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
  });

  it('prunes a vulnerability exception no file declares any more', async () => {
    const first = EXCEPTIONS.split('---\n')[0];
    await writeFile(join(dir, 'exceptions.yaml'), first);
    await writeFile(join(dir, 'postureops.yaml'), `${ROOT}prune: {VulnerabilityException: true}\n`);
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--format', 'json'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout).results.map((r: { action: string; name: string }) => `${r.action} ${r.name}`)).toEqual(['delete build-hosts']);
    const left = await rawApi(emu, 'GET', '/api/v2/VulnerabilityExceptions', { account: 'prod' });
    expect(left.body.data.map((e: { exceptionName: string }) => e.exceptionName)).toEqual(['webp']);
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
  });

  it('refuses a data export rule naming a live channel of another type', async () => {
    const made = await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account: 'prod', body: { name: 'chat', type: 'SlackChannel', enabled: 1, data: { slackUrl: 'https://hooks.slack.com/services/T/B/x' } } });
    expect(made.status).toBe(201);
    const wrong = await makeRepo({ 'postureops.yaml': ROOT, 'export.yaml': 'kind: DataExportRule\nname: to-chat\nspec:\n  channels: [chat]\n' });
    const res = await cli(['plan', wrong], { env });
    expect(res.code).toBe(1);
    // At the name, where validate warned too (issue 33: "another type is an error at its line").
    expect(oneLine(res.stderr)).toContain('export.yaml:4:14: warning[reference-not-declared]: AlertChannel `chat` is not declared');
    expect(oneLine(res.stderr)).toContain('export.yaml:4:14: error[reference-not-allowed]: DataExportRule to-chat refers to AlertChannel chat, whose type is SlackChannel; a DataExportRule takes only AwsS3');
    await rm(wrong, { recursive: true, force: true });
  });

  it('will not delete an S3 channel a live export rule uses; deletes the rule first, the channel last', async () => {
    await unlink(join(dir, 'lake.yaml'));
    await writeFile(join(dir, 'postureops.yaml'), `${ROOT}prune: {AlertChannel: true, DataExportRule: true}\n`);
    // The rule still declared names a channel this plan would delete.
    const declared = await cli(['plan', dir], { env });
    expect(declared.code).toBe(1);
    expect(oneLine(declared.stderr)).toContain('DataExportRule to-lake refers to AlertChannel lake, which this plan deletes');

    // Kept only in the service (not declared, prune off for it): the plan is refused as in use, naming it.
    await writeFile(join(dir, 'postureops.yaml'), `${ROOT}prune: {AlertChannel: true}\n`);
    await unlink(join(dir, 'export.yaml'));
    const refused = await cli(['plan', dir, '--format', 'json'], { env });
    expect(refused.code).toBe(3);
    const plan = JSON.parse(refused.stdout);
    expect(plan.refusal.code).toBe('in-use');
    expect(plan.refusal.details).toContain('prod/AlertChannel/lake (delete) is still used by DataExportRule to-lake (not declared in this configuration)');

    // Both pruned: the rule goes first, then the channel; then nothing is left to do. (--force: every
    // channel of the account goes, the console's `chat` too, which the safety threshold refuses.)
    await writeFile(join(dir, 'postureops.yaml'), `${ROOT}prune: {AlertChannel: true, DataExportRule: true}\n`);
    const both = await cli(['apply', dir, '--auto-approve', '--no-lease', '--format', 'json', '--force'], { env });
    expect(both.code, both.stderr).toBe(0);
    const order = JSON.parse(both.stdout).results.map((r: { action: string; kind: string; name: string }) => `${r.action} ${r.kind} ${r.name}`);
    expect(order.indexOf('delete DataExportRule to-lake')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('delete DataExportRule to-lake')).toBeLessThan(order.indexOf('delete AlertChannel lake'));
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });
});

describe('an expired vulnerability exception at validate', () => {
  it('is a warning by the clock the CLI is given, and the repository stays valid', async () => {
    const repo = await makeRepo({ 'postureops.yaml': ROOT, 've.yaml': 'kind: VulnerabilityException\nname: old\nspec:\n  type: Host\n  reason: Other\n  expiry: "2027-03-01T00:00:00Z"\n' });
    const before = await cli(['validate', repo], { now: () => Date.UTC(2027, 1, 28) });
    expect(before.code).toBe(0);
    expect(before.stdout + before.stderr).not.toContain('expired');
    const after = await cli(['validate', repo], { now: () => Date.UTC(2027, 2, 11) });
    expect(after.code).toBe(0);
    expect(oneLine(after.stdout + after.stderr)).toContain('ve.yaml:6:11: warning[exception-expired]: VulnerabilityException `old` expired 10 days ago (2027-03-01T00:00:00Z)');
  });
});
