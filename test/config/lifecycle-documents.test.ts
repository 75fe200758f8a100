// previousNames, lifecycle and protect as files give them (issue 11): schema, loader, offline checks.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { codes, makeRepo } from './helpers.js';

const ROOT = 'accounts:\n  - name: prod\n';
const CHANNEL = `kind: AlertChannel
name: new-hook
previousNames: [old-hook]
lifecycle:
  preventDestroy: true
  ignoreChanges: [/data/webhookUrl]
spec:
  type: Webhook
  data:
    webhookUrl: https://example.com/h
`;

describe('previousNames, lifecycle and protect in files', () => {
  it('reach the declared resource and the root config', async () => {
    const dir = await makeRepo({ 'postureops.yaml': `${ROOT}protect: [AlertChannel/keep-*, 'prod/AlertRule/x']\n`, 'c.yaml': CHANNEL });
    const r = await loadConfig(dir, { env: {}, cwd: dir });
    expect(r.diagnostics).toEqual([]);
    expect(r.state?.root.protect).toEqual(['AlertChannel/keep-*', 'prod/AlertRule/x']);
    const [channel] = r.state!.resources;
    expect([channel.previousNames, channel.lifecycle]).toEqual([['old-hook'], { preventDestroy: true, ignoreChanges: ['/data/webhookUrl'] }]);
  });

  it('a kind whose name is its id cannot take previousNames: an error at the member that says why', async () => {
    const profile = 'kind: AlertProfile\nname: CUSTOM_NEW\npreviousNames: [CUSTOM_OLD]\nspec:\n  extends: SVC_HE_FILES_DEFAULT_PROFILE\n  alerts: []\n';
    const r = await loadConfig(await makeRepo({ 'postureops.yaml': ROOT, 'p.yaml': profile }), { env: {} });
    expect(codes(r.diagnostics)).toEqual(['rename-unsupported']);
    expect(r.diagnostics[0]).toMatchObject({ line: 3, field: '/previousNames' });
    expect(r.diagnostics[0].message).toContain('alertProfileId');
  });

  it.each([
    ['a previous name equal to the name', CHANNEL.replace('[old-hook]', '[new-hook]'), 'invalid-value'],
    ['an unknown lifecycle member', CHANNEL.replace('preventDestroy: true', 'preventDelete: true'), 'unknown-field'],
    ['an ignoreChanges entry that is not a pointer', CHANNEL.replace('[/data/webhookUrl]', '[data.webhookUrl]'), 'invalid-value'],
  ])('%s → %s', async (_name, text, code) => {
    const r = await loadConfig(await makeRepo({ 'postureops.yaml': ROOT, 'c.yaml': text }), { env: {} });
    expect(codes(r.diagnostics)).toEqual([code]);
  });

  it('a protect selector that is not [account/]Kind/name is refused', async () => {
    const r = await loadConfig(await makeRepo({ 'postureops.yaml': `${ROOT}protect: [just-a-name]\n` }), { env: {} });
    expect(codes(r.diagnostics)).toEqual(['invalid-value']);
  });
});
