// Issue 33's "real shapes", through the real CLI against an emulator seeded (seedFromLists) with the
// records of test/fixtures/public-shapes.json: records in the shapes the public clients send and read
// back, in two accounts. The whole set exports (exit 0), the export validates (exit 0) and the first
// plan on it has no changes and nothing unmanaged. Then each rule on its own: a member far from every
// known one is carried with a warning, one a typo away is refused with "did you mean"; a live type a
// short edit from a known one is listed in serviceValues and carried, the same type in a hand-written
// file without that listing is refused; an older group's props as JSON text; a token's os; a rule
// naming a group the account does not list.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli, type CliResult, oneLine, rawApi, serviceEnv } from './harness.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/public-shapes.json', import.meta.url), 'utf8')) as Record<string, Record<string, { data: Record<string, unknown>[] }>>;
const LISTS = Object.fromEntries(Object.entries(FIXTURE).filter(([k]) => k !== '$comment'));
const ACCOUNTS = Object.keys(LISTS);
const RECORDS = Object.values(LISTS).flatMap((lists) => Object.values(lists).flatMap((body) => body.data));

describe('records in the public clients\' shapes: export, validate, plan', () => {
  let emu: RunningEmulator;
  let dir: string;
  let out: string;
  let envFile: string;
  let exported: CliResult;
  let validated: CliResult;
  let planned: CliResult;
  const file = (path: string): Promise<string> => readFile(join(out, path), 'utf8');

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ACCOUNTS, seedFromLists: LISTS });
    dir = await mkdtemp(join(tmpdir(), 'postureops-public-shapes-'));
    out = join(dir, 'export');
    envFile = join(dir, 'export.env');
    const env = serviceEnv(emu);
    exported = await cli(['export', '--out', out, ...ACCOUNTS.flatMap((a) => ['--account', a]), '--dotenv-out', envFile], { env });
    validated = await cli(['validate', out, '--dotenv', envFile], { env });
    planned = await cli(['plan', out, '--dotenv', envFile, '--detailed-exitcode'], { env });
  });
  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the whole set exports with exit 0, validates with exit 0 and plans no change, nothing left out or unmanaged', async () => {
    expect(exported.code, exported.stderr).toBe(0);
    expect(validated.code, validated.stdout + validated.stderr).toBe(0);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(oneLine(exported.stderr)).not.toMatch(/left out/);
    expect(oneLine(planned.stdout + planned.stderr)).not.toMatch(/unmanaged/i);
    // Every record is written under its name (tokens by alias, groups by the older resourceName too).
    const paths = ACCOUNTS.flatMap((a) => ['alert-channels', 'cloud-accounts', 'container-registries', 'resource-groups', 'alert-rules', 'agent-access-tokens'].map((k) => `${a}/${k}.yaml`));
    const written = (await Promise.all(paths.map((p) => file(p).catch(() => '')))).join('\n');
    for (const r of RECORDS) {
      const name = (r.name ?? r.resourceName ?? r.tokenAlias ?? (r.filters as { name?: string } | undefined)?.name) as string;
      expect(written, name).toContain(`name: ${name}`);
    }
  });

  it('a member far from every known one is carried with a warning; the agentless scanner\'s tokenUri is a known member', async () => {
    expect(await file('prod/alert-channels.yaml')).toContain('payloadTemplate: compact');
    const said = oneLine(validated.stdout + validated.stderr);
    expect(said).toMatch(/unknown-member.*spec\.data\.payloadTemplate/);
    const clouds = await file('prod/cloud-accounts.yaml');
    expect(clouds).toContain('tokenUri: https://oauth2.googleapis.com/token');
    expect(said).not.toContain('tokenUri');
  });

  it('a live type a short edit from a known one is listed in serviceValues and carried; a far one is carried as it was', async () => {
    const root = parse(await file('postureops.yaml')) as { serviceValues?: Record<string, string[]> };
    expect(root.serviceValues).toEqual({ 'AlertChannel type': ['MicrosoftTeamsV2'], 'CloudAccount type': ['OciCfgV2'] });
    expect(oneLine(exported.stderr)).toMatch(/export-service-value.*teams-workflow/);
    expect(await file('prod/alert-channels.yaml')).toContain('type: MicrosoftTeamsV2');
    expect(await file('prod/cloud-accounts.yaml')).toMatch(/type: OciCfgV2[\s\S]*type: GcpSidekickOrg|type: GcpSidekickOrg[\s\S]*type: OciCfgV2/);
    expect(oneLine(validated.stdout + validated.stderr)).toMatch(/MicrosoftTeamsV2.*serviceValues.*lists it as the service's/);
  });

  it('an older group whose props the service answered as JSON text exports as the object it encodes and plans clean', async () => {
    const groups = parse((await file('prod/resource-groups.yaml')).split('\n---\n').find((d) => d.includes('legacy-eu'))!) as { spec: Record<string, unknown> };
    expect(groups.spec).toEqual({ resourceType: 'AWS', props: { description: 'older group', accountIds: ['123456789012'], regions: ['eu-west-1'] } });
    // The emulator answers the text as the service did.
    const live = await rawApi(emu, 'GET', '/api/v2/ResourceGroups', { account: 'prod' });
    expect(live.body.data.find((g: { guid?: string }) => g.guid === 'PROD_RG_OLD').props).toBe(FIXTURE.prod.ResourceGroups.data[0].props);
  });

  it('agent tokens keep their os: exported, and the plan shows no os change', async () => {
    const tokens = await file('prod/agent-access-tokens.yaml');
    expect(tokens).toMatch(/name: linux-hosts[\s\S]*os: linux/);
    expect(tokens).toMatch(/name: windows-hosts[\s\S]*os: windows/);
    expect(planned.stdout).not.toMatch(/\bos\b/);
  });

  it('a rule naming a group the account does not list keeps the id as an id, with a warning, and plans', async () => {
    const rules = await file('prod/alert-rules.yaml');
    expect(rules).toMatch(/name: names-a-deleted-group[\s\S]*- PROD_RG_GONE[\s\S]*- prod-aws/);
    expect(oneLine(exported.stderr)).toMatch(/reference-kept-as-id.*names-a-deleted-group.*PROD_RG_GONE/);
    expect(oneLine(planned.stdout + planned.stderr)).toMatch(/reference-kept-as-id/);
  });

  it('in a file of its own: a type a typo from a known one is refused with "did you mean" unless serviceValues lists it; a member a typo away is refused', async () => {
    const repo = join(dir, 'hand');
    await mkdir(repo, { recursive: true });
    const channel = (type: string, data: string) => `kind: AlertChannel\nname: t\nspec:\n  type: ${type}\n  data:\n${data}`;
    await writeFile(join(repo, 'channel.yaml'), channel('MicrosoftTeamsV2', '    workflowUrl: https://example.com/wf\n'));
    await writeFile(join(repo, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
    const refused = await cli(['validate', repo]);
    expect(refused.code).toBe(1);
    expect(oneLine(refused.stdout + refused.stderr)).toContain('did you mean `MicrosoftTeams`?');
    await writeFile(join(repo, 'postureops.yaml'), "accounts:\n  - name: prod\nserviceValues:\n  AlertChannel type: [MicrosoftTeamsV2]\n");
    const carried = await cli(['validate', repo]);
    expect(carried.code, carried.stdout + carried.stderr).toBe(0);
    expect(oneLine(carried.stdout + carried.stderr)).toMatch(/warning.*unknown-type|unknown-type.*warning/i);
    // A label no closed set has is refused where it is written.
    await writeFile(join(repo, 'postureops.yaml'), "accounts:\n  - name: prod\nserviceValues:\n  AlertChanel type: [MicrosoftTeamsV2]\n");
    expect((await cli(['validate', repo])).code).toBe(1);
    await writeFile(join(repo, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
    await writeFile(join(repo, 'channel.yaml'), channel('MicrosoftTeams', '    teamsUrl: https://example.webhook.office.com/x\n    teamUrl: https://example.webhook.office.com/y\n'));
    const typo = await cli(['validate', repo]);
    expect(typo.code).toBe(1);
    expect(oneLine(typo.stdout + typo.stderr)).toContain('unknown field `teamUrl` in `spec.data`; did you mean `teamsUrl`?');
  });

  it('a token declared with os converges: apply creates it with os, the next plan has no change', async () => {
    const repo = join(dir, 'tokens');
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, 'postureops.yaml'), 'accounts:\n  - name: staging\n');
    await writeFile(join(repo, 'token.yaml'), 'kind: AgentAccessToken\nname: win-fleet\nspec:\n  os: windows\n  description: fleet\n');
    const env = serviceEnv(emu);
    const applied = await cli(['apply', repo, '--auto-approve', '--no-lease'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const live = await rawApi(emu, 'GET', '/api/v2/AgentAccessTokens', { account: 'staging' });
    expect(live.body.data.find((t: { tokenAlias: string }) => t.tokenAlias === 'win-fleet').props).toMatchObject({ os: 'windows', description: 'fleet' });
    const again = await cli(['plan', repo, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });
});
