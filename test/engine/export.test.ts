import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import { exportConfig } from '../../src/ops/export/export.js';
import { baseVariable, upperSnake } from '../../src/ops/export/export-secrets.js';
import { kindFileStem } from '../../src/ops/export/export-yaml.js';
import type { LiveState } from '../../src/model/live.js';
import type { LiveResource } from '../../src/model/resource.js';
import { fakeKind } from './apply-fakes.js';
import type { Kind } from '../../src/kinds/types.js';

const SLACK_URL = 'https://hooks.slack.com/services/T0000/B0000/sekr1tsekr1t';
const accounts = [
  { name: 'prod', orgAccess: false },
  { name: 'staging', orgAccess: false },
];

function channel(account: string, name: string, id: string, spec: LiveResource['spec']): LiveResource {
  return { kind: 'AlertChannel', account, name, id, spec };
}

function liveResources(): LiveResource[] {
  return [
    channel('prod', 'ops-slack', 'PROD_AAA', { type: 'SlackChannel', enabled: true, data: { slackUrl: SLACK_URL } }),
    channel('prod', 'dd', 'PROD_BBB', { type: 'Datadog', enabled: false, data: { datadogType: 'Logs Detail', datadogSite: 'com' } }),
    channel('staging', 'ops-slack', 'STAGING_AAA', { type: 'SlackChannel', enabled: true, data: { slackUrl: SLACK_URL + 'x' } }),
    {
      kind: 'AlertRule',
      account: 'prod',
      name: 'critical',
      id: 'uuid-1',
      spec: { channels: ['dd', 'ops-slack'], severity: [1, 2], eventCategory: ['Cloud'], resourceGroups: [], description: 'to on-call', enabled: true },
    },
    { kind: 'AlertProfile', account: 'prod', name: 'SVC_FILES', id: 'SVC_FILES', spec: { extends: 'SVC_BASE_PROFILE' }, managedByService: true },
    { kind: 'AlertTemplate', account: 'prod', name: 'SVC_FILES.x', id: 'SVC_FILES.x', parent: 'SVC_FILES', spec: { eventName: 'e', subject: 's', description: 'd' }, managedByService: true },
    { kind: 'AlertProfile', account: 'prod', name: 'CUSTOM_FILES', id: 'CUSTOM_FILES', spec: { extends: 'SVC_FILES' } },
    {
      kind: 'AlertTemplate',
      account: 'prod',
      name: 'CUSTOM_FILES.Changed',
      id: 'CUSTOM_FILES.Changed',
      parent: 'CUSTOM_FILES',
      spec: { eventName: 'Changed file', subject: '{{PATH}} changed', description: '{{_OCCURRENCE}}' },
    },
  ];
}

const liveOf = (resources: LiveResource[]): LiveState => ({ accounts, resources, calls: { total: 0, byBucket: {} } });
const fileMap = (files: { path: string; content: string }[]) => Object.fromEntries(files.map((f) => [f.path, f.content]));

describe('exportConfig', () => {
  it('writes the root file, one multi-document file per kind per account, and the secrets note', () => {
    const result = exportConfig(liveOf(liveResources()), { accounts });
    expect(result.files.map((f) => f.path)).toEqual([
      'SECRETS.md',
      'postureops.yaml',
      'prod/alert-channels.yaml',
      'prod/alert-profiles.yaml',
      'prod/alert-rules.yaml',
      'staging/alert-channels.yaml',
    ]);
    const files = fileMap(result.files);
    expect(parse(files['postureops.yaml'])).toEqual({
      accounts: [{ name: 'prod' }, { name: 'staging' }],
      defaults: { account: 'prod' },
      prune: false,
      // The variables its documents read, declared.
      variables: ['SECRET_PROD_DD_API_KEY', 'SECRET_PROD_OPS_SLACK_SLACK_URL', 'SECRET_STAGING_OPS_SLACK_SLACK_URL'],
    });
    const channels = parseAllDocuments(files['prod/alert-channels.yaml']).map((d) => d.toJSON());
    expect(channels).toEqual([
      { kind: 'AlertChannel', name: 'dd', account: 'prod', spec: { data: { apiKey: '${env:SECRET_PROD_DD_API_KEY}', datadogSite: 'com', datadogType: 'Logs Detail' }, enabled: false, type: 'Datadog' } },
      { kind: 'AlertChannel', name: 'ops-slack', account: 'prod', spec: { data: { slackUrl: '${env:SECRET_PROD_OPS_SLACK_SLACK_URL}' }, type: 'SlackChannel' } },
    ]);
    // Keys in a fixed order: kind, name, account, spec; in spec type and enabled first, the rest sorted.
    expect(files['prod/alert-channels.yaml'].split('\n').slice(0, 10)).toEqual([
      'kind: AlertChannel',
      'name: dd',
      'account: prod',
      'spec:',
      '  type: Datadog',
      '  enabled: false',
      '  data:',
      '    apiKey: ${env:SECRET_PROD_DD_API_KEY}',
      '    datadogSite: com',
      '    datadogType: Logs Detail',
    ]);
    expect(files['prod/alert-channels.yaml']).toContain('\n---\nkind: AlertChannel\nname: ops-slack\n');
    const profiles = parseAllDocuments(files['prod/alert-profiles.yaml']).map((d) => d.toJSON());
    expect(profiles).toEqual([
      {
        kind: 'AlertProfile',
        name: 'CUSTOM_FILES',
        account: 'prod',
        spec: { alerts: [{ name: 'Changed', eventName: 'Changed file', subject: '{{PATH}} changed', description: '{{_OCCURRENCE}}' }], extends: 'SVC_FILES' },
      },
    ]);
    expect(parse(files['prod/alert-rules.yaml']).spec.channels).toEqual(['dd', 'ops-slack']);
    expect(result.diagnostics).toEqual([]);
  });

  it('never writes a secret value, and lists every variable with its kind of secret', () => {
    const result = exportConfig(liveOf(liveResources()), { accounts });
    for (const f of result.files) expect(f.content).not.toContain('sekr1t');
    expect(result.secrets).toEqual([
      { variable: 'SECRET_PROD_DD_API_KEY', account: 'prod', kind: 'AlertChannel', name: 'dd', field: '/data/apiKey', writeOnly: true },
      { variable: 'SECRET_PROD_OPS_SLACK_SLACK_URL', account: 'prod', kind: 'AlertChannel', name: 'ops-slack', field: '/data/slackUrl', writeOnly: false },
      { variable: 'SECRET_STAGING_OPS_SLACK_SLACK_URL', account: 'staging', kind: 'AlertChannel', name: 'ops-slack', field: '/data/slackUrl', writeOnly: false },
    ]);
    const note = fileMap(result.files)['SECRETS.md'];
    expect(note).toContain('| `SECRET_PROD_DD_API_KEY` | AlertChannel | dd | `/data/apiKey` | write-only |');
    expect(note).toContain('| `SECRET_STAGING_OPS_SLACK_SLACK_URL` | AlertChannel | ops-slack | `/data/slackUrl` | compared |');
  });

  it('gives the same bytes for the same live state, whatever order it came in', () => {
    const a = exportConfig(liveOf(liveResources()), { accounts });
    const shuffled = liveResources()
      .reverse()
      .map((r) => (r.kind === 'AlertChannel' ? { ...r, spec: { data: Object.fromEntries(Object.entries(r.spec.data as object).reverse()), enabled: r.spec.enabled, type: r.spec.type } } : r));
    const b = exportConfig(liveOf(shuffled), { accounts });
    expect(b.files).toEqual(a.files);
    expect(b.secrets).toEqual(a.secrets);
  });

  it('names colliding variables _2, _3 in sorted order, and never hands out the CLI’s own variables', () => {
    expect(upperSnake('opsSlack-2 x')).toBe('OPS_SLACK_2_X');
    expect(baseVariable('prod', 'ops-slack', '/data/slackUrl')).toBe('SECRET_PROD_OPS_SLACK_SLACK_URL');
    const resources = ['ops_slack', 'ops-slack', 'OPS SLACK'].map((name, i) =>
      channel('prod', name, `ID${i}`, { type: 'SlackChannel', enabled: true, data: { slackUrl: `https://h/${i}` } }),
    );
    resources.push(channel('api', 'key', 'ID9', { type: 'GcpPubsub', enabled: true, data: { projectId: 'p', topicId: 't', credentials: { clientEmail: 'e', clientId: 'c' } } }));
    const result = exportConfig(liveOf(resources), { accounts: [{ name: 'prod', orgAccess: false }, { name: 'api', orgAccess: true }] });
    expect(result.secrets.map((s) => `${s.variable} ${s.name}`)).toEqual([
      'SECRET_API_KEY_PRIVATE_KEY key',
      'SECRET_API_KEY_PRIVATE_KEY_ID key',
      'SECRET_PROD_OPS_SLACK_SLACK_URL OPS SLACK',
      'SECRET_PROD_OPS_SLACK_SLACK_URL_2 ops-slack',
      'SECRET_PROD_OPS_SLACK_SLACK_URL_3 ops_slack',
    ]);
    expect(parse(fileMap(result.files)['postureops.yaml']).accounts).toEqual([{ name: 'prod' }, { name: 'api', orgAccess: true }]);
  });

  it('leaves out live names that are duplicated or blank, with diagnostics and a note', () => {
    const resources = liveResources();
    resources.push(channel('prod', 'ops-slack', 'PROD_CCC', { type: 'Webhook', enabled: true, data: { webhookUrl: 'https://w/1' } }));
    resources.push(channel('prod', '  ', 'PROD_DDD', { type: 'Webhook', enabled: true, data: { webhookUrl: 'https://w/2' } }));
    const result = exportConfig(liveOf(resources), { accounts });
    const codes = result.diagnostics.map((d) => `${d.severity} ${d.code}`);
    expect(codes).toEqual(['error duplicate-live-name', 'error invalid-live-name', 'warning reference-not-exported']);
    expect(result.diagnostics[0].message).toContain('ids PROD_AAA, PROD_CCC');
    expect(result.diagnostics[2].message).toContain('AlertRule "critical" in account prod names AlertChannel "ops-slack"');
    const files = fileMap(result.files);
    const names = parseAllDocuments(files['prod/alert-channels.yaml']).map((d) => d.toJSON().name);
    expect(names).toEqual(['dd']);
    expect(files['SECRETS.md']).toContain('## Left out of this export');
    expect(files['SECRETS.md']).toContain('AlertChannel "ops-slack": 2 live resources share this name (ids PROD_AAA, PROD_CCC)');
    expect(result.secrets.some((s) => s.account === 'prod' && s.name === 'ops-slack')).toBe(false);
    // Staging's channel of the same name is not a duplicate.
    expect(files['staging/alert-channels.yaml']).toContain('name: ops-slack');
  });

  it('exports only the kinds asked for; a kind without documents selects its owner', () => {
    const rules = exportConfig(liveOf(liveResources()), { accounts, kindNames: ['AlertRule'] });
    expect(rules.files.map((f) => f.path)).toEqual(['SECRETS.md', 'postureops.yaml', 'prod/alert-rules.yaml']);
    // The rule's channels are not written: that deserves a word.
    expect(rules.diagnostics.map((d) => d.code)).toEqual(['reference-not-exported', 'reference-not-exported']);
    const templates = exportConfig(liveOf(liveResources()), { accounts, kindNames: ['AlertTemplate'] });
    expect(templates.files.map((f) => f.path)).toContain('prod/alert-profiles.yaml');
    const unknown = exportConfig(liveOf(liveResources()), { accounts, kindNames: ['Widget'] });
    expect(unknown.diagnostics[0]).toMatchObject({ severity: 'error', code: 'unknown-kind' });
  });

  it('leaves out a document where a secret would surface outside its pointer (defence in depth)', () => {
    const Leaky = fakeKind('Leaky', { sensitive: ['/url'] });
    const leaky: Kind = { ...Leaky, export: { toDocument: (live: LiveResource) => ({ kind: 'Leaky', name: live.name, spec: { ...live.spec, note: `copy of ${String(live.spec.url)}` } }) } };
    const result = exportConfig(liveOf([{ kind: 'Leaky', account: 'prod', name: 'l', id: '1', spec: { url: 'https://secret.example/abc' } }]), { accounts, kinds: [leaky] });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['secret-in-export']);
    for (const f of result.files) expect(f.content).not.toContain('secret.example');
  });

  it('warns about a live value that loading would read as an env reference', () => {
    const Note = fakeKind('Note');
    const result = exportConfig(liveOf([{ kind: 'Note', account: 'prod', name: 'n', id: '1', spec: { text: 'pay ${env:HOME}' } }]), { accounts, kinds: [Note] });
    expect(result.diagnostics).toMatchObject([{ severity: 'warning', code: 'env-like-live-value', field: '/spec/text' }]);
  });

  it('refuses an export without accounts', () => {
    expect(exportConfig(liveOf([]), { accounts: [] }).diagnostics).toMatchObject([{ code: 'no-accounts', severity: 'error' }]);
  });

  it('names kind files in kebab-case plural', () => {
    expect(['AlertChannel', 'ContainerRegistry', 'CloudAccount', 'AlertProfile', 'Box'].map(kindFileStem)).toEqual([
      'alert-channels',
      'container-registries',
      'cloud-accounts',
      'alert-profiles',
      'boxes',
    ]);
  });
});
