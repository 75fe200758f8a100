// Hostile or broken files: each one is a diagnostic, never a crash, a hang or a polluted prototype.

import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { codes, makeRepo, ROOT_TWO, tempDir } from './helpers.js';

const SLACK = 'kind: AlertChannel\nname: ops-slack\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: ${env:SLACK_URL}\n';
const ENV = { SLACK_URL: 'https://hooks.slack.com/services/T000/B000/XXXX' };

async function load(files: Record<string, string | Uint8Array>, env: Record<string, string> = ENV) {
  const dir = await makeRepo({ 'postureops.yaml': ROOT_TWO, ...files });
  return { dir, result: await loadConfig(dir, { env, cwd: dir }) };
}

describe('YAML and file hazards', () => {
  it('refuses a 10 MB file without parsing it', async () => {
    const big = new Uint8Array(10 * 1024 * 1024).fill(0x61);
    const { result } = await load({ 'big.yaml': big });
    const d = result.diagnostics.find((x) => x.code === 'file-too-large');
    expect(d).toMatchObject({ severity: 'error', file: 'big.yaml' });
    expect(d?.message).toContain('10.0 MB');
    expect(result.state).toBeDefined();
  });

  it('stops an alias bomb (billion laughs)', async () => {
    const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
    const { result } = await load({ 'bomb.yaml': SLACK.replace('spec:\n', `x:\n${lines.map((l) => '  ' + l).join('\n')}\nspec:\n`) });
    const d = result.diagnostics.find((x) => x.code === 'yaml-alias-bomb');
    expect(d).toMatchObject({ severity: 'error', file: 'bomb.yaml' });
    expect(d?.line).toBeGreaterThan(3);
    expect(result.state?.resources).toEqual([]);
  });

  it('refuses an alias that contains itself', async () => {
    const { result } = await load({ 'cycle.yaml': SLACK + 'x: &x [*x]\n' });
    expect(codes(result.diagnostics)).toContain('yaml-alias-cycle');
  });

  it('accepts a few ordinary aliases, within one document only', async () => {
    const text = 'kind: AlertRule\nname: r1\nspec:\n  channels: &ch [ops-slack]\n  resourceGroups: *ch\n  severity: [high]\n';
    const { result } = await load({ 'c.yaml': SLACK, 'r.yaml': text });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.state?.resources.find((r) => r.name === 'r1')?.spec.resourceGroups).toEqual(['ops-slack']);
    const across = await load({ 'c.yaml': SLACK, 'r.yaml': text + '---\nkind: AlertRule\nname: r2\nspec:\n  channels: *ch\n  severity: [low]\n' });
    expect(across.result.diagnostics.find((d) => d.code === 'yaml-alias-unknown')).toMatchObject({ file: 'r.yaml', line: 11, column: 13 });
  });

  it('refuses __proto__, constructor and prototype keys and pollutes nothing', async () => {
    const text = SLACK.replace('spec:\n', '__proto__:\n  polluted: true\nspec:\n  constructor: {prototype: {polluted: true}}\n');
    const { result } = await load({ 'p.yaml': text });
    const forbidden = result.diagnostics.filter((d) => d.code === 'forbidden-key');
    expect(forbidden.map((d) => [d.line, d.column])).toEqual([
      [3, 1],
      [6, 3],
    ]);
    expect(forbidden[0].message).toContain('`__proto__`');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports tabs used for indentation', async () => {
    const { result } = await load({ 't.yaml': 'kind: AlertChannel\nname: x\nspec:\n\ttype: Webhook\n' });
    expect(result.diagnostics.find((d) => d.code === 'yaml-tab-indent')).toMatchObject({ file: 't.yaml', line: 4, column: 1 });
  });

  it('refuses binary files', async () => {
    const { result } = await load({ 'bin.yaml': new Uint8Array([0x6b, 0x69, 0x6e, 0x64, 0x0a, 0x00, 0x01, 0x02]) });
    expect(result.diagnostics.find((d) => d.code === 'file-binary')).toMatchObject({ file: 'bin.yaml', line: 2, column: 1 });
  });

  it('refuses invalid UTF-8 and says where', async () => {
    const bytes = Buffer.concat([Buffer.from('kind: AlertChannel\nname: caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const { result } = await load({ 'latin1.yaml': bytes });
    expect(result.diagnostics.find((d) => d.code === 'file-encoding')).toMatchObject({ file: 'latin1.yaml', line: 2, column: 10 });
  });

  it('warns about empty documents and files and loads the rest', async () => {
    const { result } = await load({ 'e.yaml': '---\n---\n' + SLACK, 'empty.yaml': '# nothing yet\n' });
    const empties = result.diagnostics.filter((d) => d.code === 'empty-document');
    expect(empties.every((d) => d.severity === 'warning')).toBe(true);
    expect(empties.map((d) => d.file).sort()).toEqual(['e.yaml', 'empty.yaml']);
    expect(result.state?.resources.map((r) => r.name)).toEqual(['ops-slack']);
  });

  it('reports duplicate keys with the key and its position', async () => {
    const { result } = await load({ 'd.yaml': SLACK.replace('  type: SlackChannel\n', '  type: SlackChannel\n  type: Webhook\n') });
    const d = result.diagnostics.find((x) => x.code === 'yaml-duplicate-key');
    expect(d).toMatchObject({ file: 'd.yaml', line: 5, column: 3 });
    expect(d?.message).toContain('`type`');
    expect(result.state?.resources).toEqual([]);
  });

  it('reports keys that differ in YAML but not in JSON, and merge keys', async () => {
    const { result } = await load({ 'k.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [x]\n  severity: [high]\n  x: &a {1: a, "1": b}\n  y:\n    <<: *a\n' });
    expect(result.diagnostics.find((d) => d.code === 'yaml-duplicate-key')).toMatchObject({ line: 6, column: 16, message: 'duplicate key `1` in the same mapping' });
    expect(result.diagnostics.find((d) => d.code === 'yaml-merge-key')).toMatchObject({ line: 8, column: 5 });
  });

  it('never echoes a value in a syntax error', async () => {
    // yaml itself would say: Unexpected scalar token in YAML stream: "hunter2-secret-value"
    const { result } = await load({ 's.yaml': 'kind: AlertChannel\nname: x\nspec: {a: 1}\n}hunter2-secret-value\n' });
    const d = result.diagnostics.filter((x) => x.code === 'yaml-syntax');
    expect(d.map((x) => [x.line, x.column, x.message])).toEqual([
      [4, 1, 'YAML syntax error: Unexpected flow-map-end token in YAML stream: "}"'],
      [4, 2, 'YAML syntax error: Unexpected scalar token in YAML stream'],
    ]);
    expect(JSON.stringify(result.diagnostics)).not.toContain('hunter2');
  });

  it('reports values JSON cannot hold', async () => {
    const { result } = await load({ 'n.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [x]\n  severity: [.inf]\n' });
    expect(result.diagnostics.find((d) => d.code === 'yaml-unsupported-value')).toMatchObject({ line: 5, column: 14 });
  });

  it('keeps documents of a file apart: one broken document does not hide the others', async () => {
    const { result } = await load({ 'm.yaml': 'kind: AlertRule\nname: [broken\n---\n' + SLACK });
    expect(codes(result.diagnostics)).toContain('yaml-syntax');
    expect(result.state?.resources.map((r) => r.name)).toEqual(['ops-slack']);
  });

  it('skips hidden folders and node_modules, and does not follow links out of the tree', async () => {
    const outside = await tempDir('postureops-outside-');
    await writeFile(path.join(outside, 'evil.yaml'), 'kind: Nope\n');
    const { dir } = await load({ 'ok.yaml': SLACK, '.github/workflows/ci.yml': 'on: push\n', 'node_modules/x/y.yaml': 'kind: Nope\n', '.hidden.yaml': 'x: 1\n' });
    await symlink(path.join(outside, 'evil.yaml'), path.join(dir, 'link.yaml'));
    await symlink(outside, path.join(dir, 'linked-dir'));
    // Links inside the tree are followed, and what they reach is read once.
    await mkdir(path.join(dir, 'inner'));
    await mkdir(path.join(dir, '.shared'));
    await writeFile(path.join(dir, '.shared', 'rule.yaml'), 'kind: AlertRule\nname: shared\nspec:\n  channels: [ops-slack]\n  severity: [high]\n');
    await symlink(path.join(dir, '.shared', 'rule.yaml'), path.join(dir, 'inner', 'rule.yml'));
    await symlink(path.join(dir, 'ok.yaml'), path.join(dir, 'inner', 'same.yml'));
    await symlink(dir, path.join(dir, 'inner', 'loop'));
    const result = await loadConfig(dir, { env: ENV, cwd: dir });
    const outsideWarnings = result.diagnostics.filter((d) => d.code === 'symlink-outside');
    expect(outsideWarnings.map((d) => d.file).sort()).toEqual(['link.yaml', 'linked-dir']);
    expect(result.diagnostics.filter((d) => d.code !== 'symlink-outside')).toEqual([]);
    expect(result.state?.resources.map((r) => r.name).sort()).toEqual(['ops-slack', 'shared']);
  });

  it('skips a folder that holds a configuration of its own, with a warning', async () => {
    const { result } = await load({ 'ok.yaml': SLACK, 'nested/postureops.yaml': ROOT_TWO, 'nested/x.yaml': 'kind: Nope\n' });
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.file])).toEqual([['nested-root-skipped', 'warning', 'nested']]);
  });

  it('reports a broken link as unreadable', async () => {
    const { dir } = await load({ 'ok.yaml': SLACK });
    await symlink(path.join(dir, 'gone.yaml'), path.join(dir, 'dangling.yaml'));
    const result = await loadConfig(dir, { env: ENV, cwd: dir });
    expect(result.diagnostics.find((d) => d.code === 'file-unreadable')).toMatchObject({ file: 'dangling.yaml' });
  });

  it('accepts postureops.yml as the root file', async () => {
    const dir = await makeRepo({ 'postureops.yml': 'accounts:\n  - name: only\nvariables: [SLACK_URL]\n', 'a.yaml': SLACK });
    const result = await loadConfig(dir, { env: ENV, cwd: dir });
    expect(result.diagnostics).toEqual([]);
    expect(result.state?.resources.map((r) => [r.account, r.name])).toEqual([['only', 'ops-slack']]);
  });

  it('reports unknown tags as warnings', async () => {
    const { result } = await load({ 't.yaml': SLACK.replace('name: ops-slack', 'name: !custom ops-slack') });
    expect(result.diagnostics.find((d) => d.code === 'yaml-unknown-tag')).toMatchObject({ severity: 'warning', line: 2 });
  });

  it('gives paths outside the working directory as absolute paths', async () => {
    const dir = await makeRepo({ 'postureops.yaml': ROOT_TWO, 'a.yaml': 'kind: Nope\n' });
    const result = await loadConfig(dir, { env: {}, cwd: path.join(dir, 'elsewhere') });
    expect(result.diagnostics.find((d) => d.code === 'unknown-kind')?.file).toBe(path.join(dir, 'a.yaml'));
  });
});

describe('removing a secret member', () => {
  it('`member: null` removes it and is not a literal secret', async () => {
    const jira = (token: string) =>
      `kind: AlertChannel\nname: tickets\nspec:\n  type: Jira\n  data:\n    jiraType: JIRA_CLOUD\n    jiraUrl: https://example.atlassian.net\n    projectId: SEC\n    issueType: Bug\n    username: bot@example.com\n    apiToken: \${env:JIRA_TOKEN}\n    password: ${token}\n`;
    const removed = await load({ 'jira.yaml': jira('null') }, { JIRA_TOKEN: 'jira-token-value' });
    expect(codes(removed.result.diagnostics)).not.toContain('secret-literal');
    const literal = await load({ 'jira.yaml': jira('hunter2-literal') }, { JIRA_TOKEN: 'jira-token-value' });
    expect(codes(literal.result.diagnostics)).toContain('secret-literal');
  });
});
