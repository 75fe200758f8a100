// Good inputs: the examples load cleanly; documents are stamped into their accounts; env values are
// substituted and their templates recorded; positions point at the right lines.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadDocuments } from '../../src/config/load.js';
import type { RootConfig } from '../../src/model/account.js';
import { KINDS } from '../../src/kinds/index.js';
import { EXAMPLES, makeRepo, readEnvFile, ROOT_TWO } from './helpers.js';

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue; // hidden folders (examples/.github) are not configuration; the loader skips them too
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await yamlFiles(full)));
    else if (/\.ya?ml$/.test(e.name)) out.push(full);
  }
  return out.sort();
}

async function envNamesInExamples(): Promise<string[]> {
  const names = new Set<string>();
  for (const f of await yamlFiles(EXAMPLES)) for (const m of (await readFile(f, 'utf8')).matchAll(/\$\{env:([A-Za-z0-9_]+)\}/g)) names.add(m[1]);
  return [...names].sort();
}

describe('the examples', () => {
  it('load with no errors and no warnings using examples/.env.example', async () => {
    const env = await readEnvFile(path.join(EXAMPLES, '.env.example'));
    const result = await loadConfig(EXAMPLES, { env, cwd: EXAMPLES });
    expect(result.diagnostics).toEqual([]);
    const state = result.state!;
    expect(state.root.accounts).toEqual([
      { name: 'prod', orgAccess: false },
      { name: 'staging', orgAccess: false },
    ]);
    expect(state.root.defaultAccount).toBe('prod');
    expect(Object.values(state.root.prune).every((v) => v === false)).toBe(true);
    const kinds = new Set(state.resources.map((r) => r.kind));
    // The examples show every kind there is.
    expect([...kinds].sort()).toEqual(KINDS.map((k) => k.kind).sort());
    const channelTypes = new Set(state.resources.filter((r) => r.kind === 'AlertChannel').map((r) => r.spec.type));
    expect(channelTypes.size).toBeGreaterThanOrEqual(6);
    // "*" and lists stamp one document into several accounts.
    for (const name of ['ops-slack', 'secops-email', 'soc-webhook', 'host-findings', 'dockerhub-base-images', 'CUSTOM_HE_FILES_PROFILE', 'ci-scanners']) {
      expect(state.resources.filter((r) => r.name === name).map((r) => r.account).sort()).toEqual(['prod', 'staging']);
    }
  });

  it('set every secret through ${env:...}, and .env.example and the README list exactly those variables', async () => {
    const used = await envNamesInExamples();
    const listed = Object.keys(await readEnvFile(path.join(EXAMPLES, '.env.example'))).sort();
    expect(listed).toEqual(used);
    const readme = await readFile(path.join(EXAMPLES, 'README.md'), 'utf8');
    for (const name of used) expect(readme).toContain(name);
  });

  it('without the variables: one env-missing error per use, never a value', async () => {
    const env = await readEnvFile(path.join(EXAMPLES, '.env.example'));
    const result = await loadConfig(EXAMPLES, { env: {}, cwd: EXAMPLES });
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(new Set(errors.map((d) => d.code))).toEqual(new Set(['env-missing']));
    const text = JSON.stringify(result.diagnostics);
    for (const value of Object.values(env)) expect(text).not.toContain(value);
    const relaxed = await loadConfig(EXAMPLES, { env: {}, cwd: EXAMPLES, missingEnv: 'warning' });
    expect(relaxed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

const ROOT: RootConfig = {
  file: 'postureops.yaml',
  accounts: [
    { name: 'prod', orgAccess: false },
    { name: 'staging', orgAccess: false },
  ],
  defaultAccount: 'prod',
  prune: {},
  variables: ['HOOK_*', 'SLACK_URL'],
};

describe('documents', () => {
  it('stamps each document into its accounts: default, one, a list, "*"', async () => {
    const doc = (name: string, account: string) => `kind: AlertRule\nname: ${name}\n${account}spec:\n  channels: [c]\n  severity: [high]\n`;
    const dir = await makeRepo({
      'postureops.yaml': ROOT_TWO,
      'r.yaml': [doc('d', ''), doc('one', 'account: staging\n'), doc('list', 'account: [staging, prod]\n'), doc('all', 'account: "*"\n')].join('---\n'),
    });
    const { documents } = await loadDocuments(dir, ROOT, { env: {}, cwd: dir });
    expect(documents.map((d) => `${d.name}@${d.account}`)).toEqual(['d@prod', 'one@staging', 'list@staging', 'list@prod', 'all@prod', 'all@staging']);
  });

  it('substitutes ${env:...} and records the template of every pointer that used one', async () => {
    const dir = await makeRepo({
      'postureops.yaml': ROOT_TWO,
      'h.yaml':
        'kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${env:HOOK_PATH}?k=${env:HOOK_KEY}\n',
    });
    const env = { HOOK_PATH: 'p/1', HOOK_KEY: 's3cr3t' };
    const { documents, diagnostics } = await loadDocuments(dir, ROOT, { env, cwd: dir });
    expect(diagnostics).toEqual([]);
    expect(documents[0].spec).toEqual({ type: 'Webhook', data: { webhookUrl: 'https://hooks.example.com/p/1?k=s3cr3t' } });
    expect(documents[0].envRefs).toEqual({ '/data/webhookUrl': 'https://hooks.example.com/${env:HOOK_PATH}?k=${env:HOOK_KEY}' });
  });

  it('knows where every spec member is', async () => {
    const text =
      '# comment\nkind: AlertChannel\nname: ops-slack\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: ${env:SLACK_URL}\n' +
      '---\nkind: AlertRule\nname: r\nspec:\n  channels:\n    - ops-slack\n  severity: [critical, 2]\n';
    const dir = await makeRepo({ 'postureops.yaml': ROOT_TWO, 'sub/a.yaml': text });
    const { documents } = await loadDocuments(dir, ROOT, { env: { SLACK_URL: 'https://x' }, cwd: dir });
    const [channel, rule] = documents;
    expect(channel.source).toEqual({ file: 'sub/a.yaml', line: 2, column: 1 });
    expect(channel.positions['']).toEqual({ file: 'sub/a.yaml', line: 4, column: 1 });
    expect(channel.positions['/type']).toEqual({ file: 'sub/a.yaml', line: 5, column: 9 });
    expect(channel.positions['/data']).toEqual({ file: 'sub/a.yaml', line: 6, column: 3 });
    expect(channel.positions['/data/slackUrl']).toEqual({ file: 'sub/a.yaml', line: 7, column: 15 });
    expect(rule.source).toEqual({ file: 'sub/a.yaml', line: 9, column: 1 });
    expect(rule.positions['/channels/0']).toEqual({ file: 'sub/a.yaml', line: 13, column: 7 });
    expect(rule.positions['/severity/1']).toEqual({ file: 'sub/a.yaml', line: 14, column: 24 });
  });

  it('turns documents into desired resources through the kinds (severity names become numbers)', async () => {
    const dir = await makeRepo({
      'postureops.yaml': ROOT_TWO,
      'r.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [c]\n  severity: [critical, info, 3]\n',
    });
    const result = await loadConfig(dir, { env: {}, cwd: dir });
    const rule = result.state!.resources.find((r) => r.kind === 'AlertRule')!;
    expect([...(rule.spec.severity as number[])].sort()).toEqual([1, 3, 5]);
    expect(rule.source).toEqual({ file: 'r.yaml', line: 1, column: 1 });
  });
});

describe('postureops.yaml', () => {
  const rootWith = async (prune: string) => {
    const dir = await makeRepo({ 'postureops.yaml': `accounts:\n  - name: prod\n  - name: org\n    orgAccess: true\ndefaults:\n  account: prod\n${prune}` });
    return loadConfig(dir, { env: {}, cwd: dir });
  };

  it('reads accounts, orgAccess and prune per kind (templates follow profiles unless named)', async () => {
    const r = await rootWith('prune:\n  AlertProfile: true\n  AlertRule: true\n');
    expect(r.diagnostics).toEqual([]);
    expect(r.state!.root.accounts).toEqual([
      { name: 'prod', orgAccess: false },
      { name: 'org', orgAccess: true },
    ]);
    expect(r.state!.root.prune).toEqual({
      AlertChannel: false,
      AlertRule: true,
      AlertProfile: true,
      AlertTemplate: true,
      CloudAccount: false,
      ContainerRegistry: false,
      AgentAccessToken: false,
      ResourceGroup: false,
      ReportRule: false,
      DataExportRule: false,
      VulnerabilityException: false,
      Query: false,
      Policy: false,
      PolicyException: false,
      PredefinedPolicies: false,
    });
    const all = await rootWith('prune: true\n');
    // Agent tokens are disabled, not deleted, for good: a blanket `true` leaves them out.
    expect(all.state!.root.prune).toMatchObject({ AlertChannel: true, AlertTemplate: true, ContainerRegistry: true, AgentAccessToken: false });
    const named = await rootWith('prune: {AgentAccessToken: true}\n');
    expect(named.state!.root.prune.AgentAccessToken).toBe(true);
    const none = await rootWith('');
    expect(Object.values(none.state!.root.prune).some(Boolean)).toBe(false);
    const explicit = await rootWith('prune: {AlertProfile: true, AlertTemplate: false}\n');
    expect(explicit.state!.root.prune.AlertTemplate).toBe(false);
  });
});

