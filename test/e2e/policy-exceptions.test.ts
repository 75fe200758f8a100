// Issue 32's PolicyException through the CLI: the exceptions of a custom policy (declared beside its
// query) and of a predefined one apply in order (query, policy, exceptions) and plan clean; only the
// policies with declared exceptions are read (one request each); a console edit to an exception is
// drift, attributed; a field key the policy does not take is an error at plan and the service's 400
// is a clear failure; a description given twice is an error at its line; a rename keeps the id;
// prune deletes an undeclared exception before the policy it belongs to; export of an account
// holding queries, policies and exceptions validates and plans clean.

import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { makeRepo } from '../config/helpers.js';
import { cli, oneLine, rawApi, serviceEnv, story } from './harness.js';

const QUERY_TEXT = `{
    source {
        SVC_CFG_AWS_S3 b
    }
    filter {
        b.ACL_GRANTS like '%AllUsers%'
    }
    return distinct {
        b.ARN as RESOURCE_KEY, b.ACCOUNT_ID
    }
}
`;

const POLICY = `kind: Query
name: PublicBuckets
spec:
  text: |
${QUERY_TEXT.split('\n').map((l) => (l === '' ? '' : `    ${l}`)).join('\n')}
---
kind: Policy
name: publicbuckets
spec:
  query: PublicBuckets
  title: Public S3 buckets
  remediation: Remove the public grant
  severity: high
  type: Compliance
`;

const EXCEPTIONS = `kind: PolicyException
name: publicbuckets
spec:
  exceptions:
    - description: Website buckets
      constraints:
        resourceNames: [www-example-com, assets-example-com]
        resourceTags:
          - key: public
            value: ["true", "yes"]
    - description: Sandbox account
      constraints:
        accountIds: ["123456789012"]
---
kind: PolicyException
name: svc-global-8
spec:
  exceptions:
    - description: Legacy logs bucket
      constraints:
        arns: ["arn:aws:s3:::legacy-logs"]
`;

describe('PolicyException: the exceptions of a policy', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;
  const exceptionsOf = async (policyId: string): Promise<any[]> => (await rawApi(emu, 'GET', `/api/v2/Exceptions?policyId=${policyId}`, { account: 'prod' })).body.data;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    env = serviceEnv(emu);
    dir = await makeRepo({ 'postureops.yaml': 'accounts:\n  - name: prod\n', 'policy.yaml': POLICY, 'exceptions.yaml': EXCEPTIONS });
  });
  afterAll(async () => {
    await emu?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const { step, run } = story();

  step('applies query, policy and exceptions in order, reading exceptions of the declared policies only; the second plan is clean', async () => {
    const valid = await cli(['validate', dir]);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--format', 'json'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const results = JSON.parse(applied.stdout).results as { kind: string; name: string; status: string }[];
    expect(results.map((r) => `${r.status} ${r.kind} ${r.name}`)).toEqual([
      'done Query PublicBuckets',
      'done Policy publicbuckets',
      'done PolicyException publicbuckets/Sandbox account',
      'done PolicyException publicbuckets/Website buckets',
      'done PolicyException svc-global-8/Legacy logs bucket',
    ]);
    const website = (await exceptionsOf('prod-publicbuckets')).find((e) => e.description === 'Website buckets');
    expect(website.constraints).toEqual([
      { fieldKey: 'resourceNames', fieldValues: ['assets-example-com', 'www-example-com'] },
      { fieldKey: 'resourceTags', fieldValues: [{ key: 'public', value: ['true', 'yes'] }] },
    ]);
    expect(await exceptionsOf('svc-global-8')).toHaveLength(1);
    const plan = await cli(['plan', dir, '--detailed-exitcode', '--format', 'json'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // One exceptions list per policy the repository declares exceptions for, not one per live policy.
    expect(JSON.parse(plan.stdout).apiCalls.byBucket['GET Exceptions']).toBe(2);
  });

  step('a console edit to an exception is drift, attributed to its author, and apply puts it back', async () => {
    const legacy = (await exceptionsOf('svc-global-8'))[0];
    const edited = await rawApi(emu, 'PATCH', `/api/v2/Exceptions/${legacy.exceptionId}?policyId=svc-global-8`, {
      account: 'prod',
      body: { constraints: [{ fieldKey: 'arns', fieldValues: ['arn:aws:s3:::legacy-logs', 'arn:aws:s3:::*'] }] },
    });
    expect(edited.status).toBe(200);
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    const changes = JSON.parse(plan.stdout).changes as any[];
    expect(changes.map((c) => `${c.action} ${c.name}`)).toEqual(['update svc-global-8/Legacy logs bucket']);
    expect(changes[0].lastChange.by).toBe('admin@example.com');
    // --target by policy: the other policy's exceptions have nothing to change.
    expect((await cli(['plan', dir, '--target', 'PolicyException/publicbuckets/*', '--detailed-exitcode'], { env })).code).toBe(0);
    expect((await cli(['plan', dir, '--target', 'PolicyException/svc-global-8/*', '--detailed-exitcode'], { env })).code).toBe(2);
    expect(JSON.stringify(changes[0].before)).toContain('arn:aws:s3:::*');
    expect(changes[0].diff.map((d: { path: string }) => d.path.split('/').slice(0, 3).join('/'))).toContain('/constraints/arns');
    expect((await cli(['apply', dir, '--auto-approve', '--no-lease'], { env })).code).toBe(0);
    expect((await exceptionsOf('svc-global-8'))[0].constraints).toEqual([{ fieldKey: 'arns', fieldValues: ['arn:aws:s3:::legacy-logs'] }]);
  });

  step('a field key the live policy does not take is an error at plan, naming the valid ones', async () => {
    await writeFile(join(dir, 'exceptions.yaml'), EXCEPTIONS.replace('arns: ["arn:aws:s3:::legacy-logs"]', 'projects: [p-1]'));
    const plan = await cli(['plan', dir], { env });
    expect(plan.code).toBe(1);
    expect(oneLine(plan.stdout + plan.stderr)).toMatch(/exceptions\.yaml:21:\d+: error\[invalid-value\]: PolicyException svc-global-8\/Legacy logs bucket: fieldKey projects is not applicable to policy svc-global-8 .*valid fieldKeys: accountIds, arns, resourceNames, resourceTags/);
  });

  step('a description given twice in a policy is an error at its line', async () => {
    await writeFile(join(dir, 'exceptions.yaml'), EXCEPTIONS.replace('Sandbox account', 'Website buckets'));
    const valid = await cli(['validate', dir]);
    expect(valid.code).toBe(1);
    expect(oneLine(valid.stdout + valid.stderr)).toMatch(/exceptions\.yaml:11:20: error\[duplicate-item\]: PolicyException `publicbuckets`: exceptions 1 and 2 share the description "Website buckets"/);
  });

  step('a new description with previousDescriptions keeps the exception and its id', async () => {
    const before = (await exceptionsOf('prod-publicbuckets')).find((e) => e.description === 'Sandbox account').exceptionId;
    await writeFile(join(dir, 'exceptions.yaml'), EXCEPTIONS.replace('    - description: Sandbox account\n', '    - description: Sandbox AWS account\n      previousDescriptions: [Sandbox account]\n'));
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    expect((JSON.parse(plan.stdout).changes as any[]).map((c) => `${c.action} ${c.name}`)).toEqual(['update publicbuckets/Sandbox AWS account']);
    expect((await cli(['apply', dir, '--auto-approve', '--no-lease'], { env })).code).toBe(0);
    expect((await exceptionsOf('prod-publicbuckets')).find((e) => e.description === 'Sandbox AWS account').exceptionId).toBe(before);
  });

  step('exports queries, policies and exceptions to a folder that validates and plans clean', async () => {
    const out = `${dir}-export`;
    const res = await cli(['export', '--out', out, '--account', 'prod', '--verbose'], { env });
    expect(res.code, res.stderr).toBe(0);
    // Every policy's exceptions are read (ten predefined, one custom), and the pre-flight says so first.
    expect(oneLine(res.stderr)).toMatch(/Pre-flight \(export\): .*Pre-flight \(export of prod: 11 PolicyException lists, one per Policy\): 11 requests/);
    const text = await readFile(join(out, 'prod', 'policy-exceptions.yaml'), 'utf8');
    expect(text.match(/^kind: PolicyException$/gm)).toHaveLength(2);
    expect(text).toContain('name: publicbuckets');
    expect(text).toContain('name: svc-global-8');
    const valid = await cli(['validate', out]);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    const plan = await cli(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    await rm(out, { recursive: true, force: true });
  });

  step('with prune on, an exception its document no longer lists is deleted; a dropped policy goes after its query is let go, its exceptions with it', async () => {
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\nprune: {PolicyException: true, Policy: true, Query: true}\n');
    const website = EXCEPTIONS.indexOf('    - description: Website buckets');
    const sandbox = EXCEPTIONS.indexOf('    - description: Sandbox account');
    const renamed = '    - description: Sandbox AWS account\n      previousDescriptions: [Sandbox account]\n';
    await writeFile(join(dir, 'exceptions.yaml'), EXCEPTIONS.slice(0, website) + renamed + EXCEPTIONS.slice(sandbox + '    - description: Sandbox account\n'.length));
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    expect((JSON.parse(plan.stdout).changes as any[]).map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['delete PolicyException publicbuckets/Website buckets']);
    expect((await cli(['apply', dir, '--auto-approve', '--no-lease'], { env })).code).toBe(0);
    expect((await exceptionsOf('prod-publicbuckets')).map((e) => e.description)).toEqual(['Sandbox AWS account']);
    // The policy, its query and its exceptions' document dropped: the policy goes before its query.
    await writeFile(join(dir, 'policy.yaml'), '');
    await writeFile(join(dir, 'exceptions.yaml'), EXCEPTIONS.slice(EXCEPTIONS.indexOf('kind: PolicyException\nname: svc-global-8')));
    const drop = await cli(['plan', dir, '--format', 'json', '--force'], { env });
    expect((JSON.parse(drop.stdout).changes as any[]).map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['delete Policy publicbuckets', 'delete Query PublicBuckets']);
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--force'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect((await rawApi(emu, 'GET', '/api/v2/Exceptions?policyId=prod-publicbuckets', { account: 'prod' })).status).toBe(404);
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });

  step("for a policy the same apply creates, the service's 400 for a field key is the exception's failure, in the service's words", async () => {
    await writeFile(
      join(dir, 'policy.yaml'),
      'kind: Policy\nname: fresh\nspec:\n  query: SVC_Global_AWS_Config_S3BucketPublicRead\n  title: Fresh\n  remediation: Fix it\n  severity: low\n  type: Compliance\n',
    );
    await writeFile(join(dir, 'exceptions.yaml'), 'kind: PolicyException\nname: fresh\nspec:\n  exceptions:\n    - description: GCP projects\n      constraints:\n        projects: [p-1]\n');
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    expect((JSON.parse(plan.stdout).changes as any[]).map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['create Policy fresh', 'create PolicyException fresh/GCP projects']);
    // The rehearsal meets the service's refusal first: the apply stops before its first write.
    const rehearsed = await cli(['apply', dir, '--auto-approve', '--no-lease'], { env });
    expect(rehearsed.code).toBe(3);
    expect(oneLine(rehearsed.stdout + rehearsed.stderr)).toMatch(/rehearsal refused create prod\/PolicyException\/fresh\/GCP projects: .*400: fieldKey: projects is not applicable/);
    expect(oneLine(rehearsed.stdout + rehearsed.stderr)).toContain('nothing was sent to the service');
    // Without it, the service refuses it half-way: the policy is created, the exception fails.
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--no-rehearse'], { env });
    expect(applied.code).toBe(1);
    expect(oneLine(applied.stdout + applied.stderr)).toMatch(/PolicyException fresh\/GCP projects.*fieldKey: projects is not applicable to policy prod-fresh\. Valid fieldKey are \[accountIds, arns, resourceNames, resourceTags\]/);
    // The next plan knows the policy: the same mistake is an error before anything is sent.
    const again = await cli(['plan', dir], { env });
    expect(again.code).toBe(1);
    expect(oneLine(again.stdout + again.stderr)).toMatch(/exceptions\.yaml:7:\d+: error\[invalid-value\]: PolicyException fresh\/GCP projects: fieldKey projects is not applicable to policy prod-fresh/);
  });

  it('runs the story in order', run);
});
