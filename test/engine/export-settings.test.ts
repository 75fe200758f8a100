// Issue 19: export reads the vendor prefix of the predefined alert profiles from the live profiles
// (their structure, not their names), writes it to postureops.yaml when it is not the default, and
// classifies the live profiles by it: a custom profile that extends an LW_ one passes the kind's
// checks, and a custom id with SVC_ on such an account is the user's, exported like any other.

import { describe, expect, it } from 'vitest';
import { exportConfig } from '../../src/ops/export/export.js';
import { liveSettings } from '../../src/ops/export/export-settings.js';
import { detectPrefix } from '../../src/kinds/alert-profile/ids.js';
import { rootFile } from '../../src/ops/export/export-yaml.js';
import type { LiveState } from '../../src/model/live.js';
import { KINDS } from '../../src/kinds/index.js';
import type { LiveResource } from '../../src/model/resource.js';

const node = (name: string, parent?: string) => ({ name, ...(parent ? { parent } : {}) });

describe('detectPrefix', () => {
  it('is the common prefix of the root and the profiles that extend it, cut after its last _', () => {
    const lw = [node('LW_BASE_PROFILE'), node('LW_HE_FILES_DEFAULT_PROFILE', 'LW_BASE_PROFILE'), node('LW_Aws_Mixed', 'LW_BASE_PROFILE'), node('CUSTOM', 'LW_HE_FILES_DEFAULT_PROFILE')];
    expect(detectPrefix(lw)).toBe('LW_');
    expect(detectPrefix([node('ACME_CORP_BASE'), node('ACME_CORP_FILES', 'ACME_CORP_BASE'), node('ACME_CORP_CLOUD', 'ACME_CORP_BASE')])).toBe('ACME_CORP_');
    // Children sharing more than the vendor prefix with each other still share only it with the root.
    expect(detectPrefix([node('LW_BASE_PROFILE'), node('LW_BASIC_A', 'LW_BASE_PROFILE')])).toBe('LW_');
  });

  it('takes a root the list leaves out from the profiles that name it; a root alone up to its first _', () => {
    expect(detectPrefix([node('LW_HE_FILES', 'LW_BASE_PROFILE'), node('LW_CFG_AWS', 'LW_BASE_PROFILE'), node('MINE', 'LW_HE_FILES')])).toBe('LW_');
    expect(detectPrefix([node('LW_BASE_PROFILE')])).toBe('LW_');
  });

  it('ignores a childless record without extends next to the real root, and finds nothing in nothing', () => {
    expect(detectPrefix([node('BROKEN'), node('LW_BASE_PROFILE'), node('LW_HE', 'LW_BASE_PROFILE')])).toBe('LW_');
    expect(detectPrefix([])).toBeUndefined();
    expect(detectPrefix([node('NOPREFIX')])).toBeUndefined();
  });
});

const profile = (account: string, name: string, base?: string, managed = name.startsWith('SVC_')): LiveResource => ({
  kind: 'AlertProfile',
  account,
  name,
  id: name,
  spec: base ? { extends: base } : {},
  ...(managed ? { managedByService: true } : {}),
});
const template = (account: string, parent: string): LiveResource => ({
  kind: 'AlertTemplate',
  account,
  name: `${parent}.T`,
  id: `${parent}.T`,
  parent,
  spec: { eventName: 'e', subject: 's', description: '{{_OCCURRENCE}}' },
  ...(parent.startsWith('SVC_') ? { managedByService: true } : {}),
});
/** An account as the kinds read it without a root file (default prefix SVC_), the service's being LW_. */
const lwAccount = (account: string): LiveResource[] => [
  profile(account, 'LW_BASE_PROFILE'),
  profile(account, 'LW_HE_FILES_DEFAULT_PROFILE', 'LW_BASE_PROFILE'),
  template(account, 'LW_HE_FILES_DEFAULT_PROFILE'),
  profile(account, 'CUSTOM_FILES', 'LW_HE_FILES_DEFAULT_PROFILE'),
  template(account, 'CUSTOM_FILES'),
  profile(account, 'SVC_OURS', 'LW_HE_FILES_DEFAULT_PROFILE'),
  template(account, 'SVC_OURS'),
];
const state = (resources: LiveResource[], accounts: string[]): LiveState => ({
  accounts: accounts.map((name) => ({ name, orgAccess: false })),
  resources,
  calls: { total: 0, byBucket: {} },
});

describe('liveSettings and the export', () => {
  it('writes predefinedProfilePrefix: LW_ and exports the custom profiles only, SVC_OURS included', () => {
    const result = exportConfig(state(lwAccount('prod'), ['prod']), { accounts: [{ name: 'prod', orgAccess: false }] });
    expect(result.diagnostics).toEqual([]);
    expect(result.settings).toEqual({ predefinedProfilePrefix: 'LW_' });
    expect(result.files.find((f) => f.path === 'postureops.yaml')?.content).toMatch(/^predefinedProfilePrefix: LW_$/m);
    const profiles = result.files.find((f) => f.path === 'prod/alert-profiles.yaml')?.content ?? '';
    expect([...profiles.matchAll(/^name: (\S+)$/gm)].map((m) => m[1])).toEqual(['CUSTOM_FILES', 'SVC_OURS']);
    expect(profiles).toContain('extends: LW_HE_FILES_DEFAULT_PROFILE');
  });

  it('changes nothing on an account with the default prefix', () => {
    const svc = [profile('prod', 'SVC_BASE_PROFILE'), profile('prod', 'SVC_HE', 'SVC_BASE_PROFILE'), profile('prod', 'MINE', 'SVC_HE')];
    const shown = liveSettings(svc, KINDS, ['prod']);
    expect(shown).toEqual({ settings: {}, resources: svc, diagnostics: [] });
    expect(exportConfig(state(svc, ['prod']), { accounts: [{ name: 'prod', orgAccess: false }] }).files[0].content).not.toContain('predefinedProfilePrefix');
  });

  it('accounts that disagree: the first account decides, the other is named, and its custom profile is left out with the reason', () => {
    const other = [profile('eu', 'ACME_BASE_PROFILE'), profile('eu', 'ACME_FILES', 'ACME_BASE_PROFILE'), template('eu', 'ACME_FILES'), profile('eu', 'EU_FILES', 'ACME_FILES'), template('eu', 'EU_FILES')];
    const accounts = [{ name: 'prod', orgAccess: false }, { name: 'eu', orgAccess: false }];
    const result = exportConfig(state([...lwAccount('prod'), ...other], ['prod', 'eu']), { accounts });
    expect(result.settings).toEqual({ predefinedProfilePrefix: 'LW_' });
    const codes = result.diagnostics.map((d) => [d.code, d.message]);
    expect(codes).toContainEqual(['export-setting-conflict', expect.stringContaining('account eu: its predefined alert profiles carry the prefix ACME_, not LW_')]);
    expect(result.diagnostics.find((d) => d.code === 'export-resource-left-out' && d.message.includes('"EU_FILES"'))?.message).toContain('must name a predefined profile (LW_...)');
    expect(result.files.find((f) => f.path === 'SECRETS.md')?.content).toContain('EU_FILES');
  });

  it('rootFile puts the settings after prune, with a note', () => {
    const text = rootFile([{ name: 'prod', orgAccess: false }], { predefinedProfilePrefix: 'LW_' });
    expect(text).toContain('# Settings below `prune` are what the live service shows');
    expect(text.trimEnd().split('\n').slice(-2)).toEqual(['prune: false', 'predefinedProfilePrefix: LW_']);
  });
});
