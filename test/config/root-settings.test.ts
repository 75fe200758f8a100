// Settings of postureops.yaml that a kind owns (Kind.rootSettings): in the root JSON Schema, read into
// RootConfig.settings, and used by the kind's offline checks (predefinedProfilePrefix, issue 9).

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { schemaCatalog, ROOT_SCHEMA } from '../../src/config/schema-catalog.js';
import { codes, makeRepo } from './helpers.js';

const PROFILE = 'kind: AlertProfile\nname: ACME_MINE\nspec:\n  extends: ACME_BASE\n  alerts: []\n';

describe('root settings owned by kinds', () => {
  it('puts predefinedProfilePrefix in the root schema with its default', () => {
    const root = schemaCatalog()[ROOT_SCHEMA] as { properties: Record<string, { default?: unknown }> };
    expect(root.properties.predefinedProfilePrefix?.default).toBe('SVC_');
  });

  it('reads the setting and checks custom profile ids against it', async () => {
    const dir = await makeRepo({ 'postureops.yaml': 'accounts:\n  - name: prod\npredefinedProfilePrefix: ACME_\n', 'p.yaml': PROFILE });
    const result = await loadConfig(dir, { env: {}, cwd: dir });
    expect(result.state?.root.settings).toEqual({ predefinedProfilePrefix: 'ACME_' });
    expect(codes(result.diagnostics)).toEqual(['profile-reserved-id']);
  });

  it('defaults to SVC_ when the root file says nothing, and refuses a setting of the wrong type', async () => {
    const plain = await loadConfig(await makeRepo({ 'postureops.yaml': 'accounts:\n  - name: prod\n', 'p.yaml': PROFILE }), { env: {} });
    expect(codes(plain.diagnostics)).toEqual(['profile-extends-custom']);
    const wrong = await loadConfig(await makeRepo({ 'postureops.yaml': 'accounts:\n  - name: prod\npredefinedProfilePrefix: 7\n' }), { env: {} });
    expect(codes(wrong.diagnostics)).toContain('invalid-type');
  });
});

describe('protect selectors', () => {
  it('a selector whose kind names no kind is an error (it would protect nothing), with a suggestion', async () => {
    const dir = await makeRepo({ 'postureops.yaml': 'accounts:\n  - name: prod\nprune: true\nprotect:\n  - Alertchannel/oncall-*\n  - prod/AlertRule/*\n  - "*/keep"\n' });
    const result = await loadConfig(dir, { env: {}, cwd: dir });
    const problems = result.diagnostics.filter((d) => d.code === 'protect-unknown-kind');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ severity: 'error', line: 5, hint: 'did you mean `AlertChannel`?' });
    expect(problems[0].message).toContain('Alertchannel/oncall-*');
  });
});

describe('safety thresholds', () => {
  it('reads them into the root config', async () => {
    const text = 'accounts:\n  - name: prod\nsafety:\n  deletePercent: 10\n  kinds: {AlertRule: {updatePercent: 50}}\n  accounts:\n    prod: {minResources: 3, kinds: {AlertChannel: {deletePercent: 0}}}\n';
    const result = await loadConfig(await makeRepo({ 'postureops.yaml': text }), { env: {} });
    expect(result.diagnostics).toEqual([]);
    expect(result.state?.root.safety).toEqual({ deletePercent: 10, kinds: { AlertRule: { updatePercent: 50 } }, accounts: { prod: { minResources: 3, kinds: { AlertChannel: { deletePercent: 0 } } } } });
  });

  it('refuses an account the root file does not declare, at its line, with a suggestion', async () => {
    const dir = await makeRepo({ 'postureops.yaml': 'accounts:\n  - name: prod\nsafety:\n  accounts:\n    prodd: {deletePercent: 5}\n' });
    const result = await loadConfig(dir, { env: {} });
    const problem = result.diagnostics.find((d) => d.code === 'account-not-declared');
    expect(problem).toMatchObject({ severity: 'error', line: 5, column: 5, hint: 'did you mean `prod`?' });
    expect(result.state).toBeUndefined();
  });

  it('refuses a share above 100, an unknown kind and an unknown setting', async () => {
    for (const [safety, code] of [
      ['{updatePercent: 130}', 'invalid-value'],
      ['{kinds: {AlertChanel: {deletePercent: 5}}}', ''],
      ['{deletePercentage: 5}', ''],
    ] as const) {
      const result = await loadConfig(await makeRepo({ 'postureops.yaml': `accounts:\n  - name: prod\nsafety: ${safety}\n` }), { env: {} });
      expect(result.diagnostics.filter((d) => d.severity === 'error').length, safety).toBeGreaterThan(0);
      if (code) expect(codes(result.diagnostics), safety).toContain(code);
      expect(result.diagnostics[0].line, safety).toBe(3);
    }
  });
});
