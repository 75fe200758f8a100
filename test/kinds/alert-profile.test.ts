import { describe, expect, it } from 'vitest';
import { bucketOf } from '../../src/api/buckets.js';
import { apiPath } from '../../src/kinds/common.js';
import { AlertProfile } from '../../src/kinds/alert-profile/index.js';
import { AlertTemplate } from '../../src/kinds/alert-template/index.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import type { JsonObject } from '../../src/model/json.js';
import { byName, desiredOf, doc, FILE, fetchCtx, requestCtx } from './helpers.js';

const LIST = '/api/v2/AlertProfiles';
const FIELDS = [{ name: 'PATH' }, { name: 'MID' }];
const KEYS = [
  { name: '_OCCURRENCE', spec: '{{_OCCURRENCE}}' },
  { name: 'PATH', spec: '{{PATH}}' },
  { name: 'MID', spec: '{{MID}}' },
];
const FILE_VIOLATION = { name: 'File_Violation', eventName: 'Changed file', subject: '{{PATH}} changed on {{MID}}', description: '{{_OCCURRENCE}}' };

/** Profiles as the emulator answers them: predefined root and base, and one custom profile. */
const PROFILES: JsonObject[] = [
  { alertProfileId: 'SVC_BASE_PROFILE', fields: [], descriptionKeys: [], alerts: [] },
  {
    alertProfileId: 'SVC_FILES_PROFILE',
    extends: 'SVC_BASE_PROFILE',
    fields: FIELDS,
    descriptionKeys: KEYS,
    alerts: [{ name: 'HE_File_Changed', eventName: 'File changed', subject: '{{PATH}}', description: 'on {{MID}}' }],
  },
  {
    alertProfileId: 'SVC_CLOUD_PROFILE',
    extends: 'SVC_BASE_PROFILE',
    fields: [{ name: 'RESOURCE_ID' }],
    descriptionKeys: [{ name: '_OCCURRENCE', spec: '{{_OCCURRENCE}}' }, { name: 'RESOURCE_ID', spec: '{{RESOURCE_ID}}' }],
    alerts: [{ name: 'Cloud_Change', eventName: 'Cloud change', subject: '{{RESOURCE_ID}}', description: '{{_OCCURRENCE}}' }],
  },
  { alertProfileId: 'SVC_EMPTY_PROFILE', extends: 'SVC_BASE_PROFILE', fields: [], descriptionKeys: [], alerts: [] },
  { alertProfileId: 'CUSTOM_FILES', extends: 'SVC_FILES_PROFILE', fields: FIELDS, descriptionKeys: KEYS, alerts: [FILE_VIOLATION] },
];

const PROFILE_DOC = doc(
  'AlertProfile',
  'CUSTOM_FILES',
  { extends: 'SVC_FILES_PROFILE', alerts: [FILE_VIOLATION] },
  { envRefs: { '/alerts/0/description': '${env:TEXT}' }, positions: { '/alerts/0': { file: FILE, line: 9, column: 7 } } },
);

async function liveOf(body: unknown): Promise<LiveResource[]> {
  const ctx = fetchCtx({ [LIST]: body });
  return [...(await AlertProfile.list(ctx)), ...(await AlertTemplate.list(ctx))];
}

describe('AlertProfile and AlertTemplate: documents', () => {
  it('yields the profile and one template per alert', () => {
    const [profile, template] = desiredOf(AlertProfile, PROFILE_DOC);
    expect(profile).toEqual({ kind: 'AlertProfile', account: 'prod', name: 'CUSTOM_FILES', spec: { extends: 'SVC_FILES_PROFILE' }, envRefs: {}, source: PROFILE_DOC.source });
    expect(template).toEqual({
      kind: 'AlertTemplate',
      account: 'prod',
      name: 'CUSTOM_FILES.File_Violation',
      parent: 'CUSTOM_FILES',
      spec: { eventName: 'Changed file', subject: '{{PATH}} changed on {{MID}}', description: '{{_OCCURRENCE}}' },
      envRefs: { '/description': '${env:TEXT}' },
      source: { file: FILE, line: 9, column: 7 },
      context: { extends: 'SVC_FILES_PROFILE', pointer: '/spec/alerts/0' },
    });
  });

  it('keeps the first of two templates with one name (validation reports the second)', () => {
    const second = { ...FILE_VIOLATION, subject: 'other' };
    const { resources, diagnostics } = AlertProfile.fromDocument(doc('AlertProfile', 'P', { extends: 'SVC_FILES_PROFILE', alerts: [FILE_VIOLATION, second] }));
    expect(resources.map((r) => r.name)).toEqual(['P', 'P.File_Violation']);
    expect(resources[1].spec.subject).toBe(FILE_VIOLATION.subject);
    expect(diagnostics).toEqual([]);
  });

  it('AlertTemplate reads no documents', () => {
    expect(AlertTemplate.documentKind).toBeNull();
    expect(AlertTemplate.fromDocument(doc('AlertTemplate', 'x', {})).diagnostics).toMatchObject([{ code: 'unknown-kind' }]);
  });
});

describe('AlertProfile and AlertTemplate: live state', () => {
  it.each([
    ['{data: [...]}', { data: PROFILES }],
    ['a bare array', PROFILES],
  ])('lists profiles from %s', async (_title, body) => {
    const live = await liveOf(body);
    expect(live.map((r) => [r.kind, r.name, r.managedByService ?? false])).toEqual([
      ['AlertProfile', 'SVC_BASE_PROFILE', true],
      ['AlertProfile', 'SVC_FILES_PROFILE', true],
      ['AlertProfile', 'SVC_CLOUD_PROFILE', true],
      ['AlertProfile', 'SVC_EMPTY_PROFILE', true],
      ['AlertProfile', 'CUSTOM_FILES', false],
      ['AlertTemplate', 'SVC_FILES_PROFILE.HE_File_Changed', true],
      ['AlertTemplate', 'SVC_CLOUD_PROFILE.Cloud_Change', true],
      ['AlertTemplate', 'CUSTOM_FILES.File_Violation', false],
    ]);
    expect(byName(live, 'SVC_FILES_PROFILE').info).toEqual({ fields: FIELDS, descriptionKeys: KEYS });
    expect(byName(live, 'CUSTOM_FILES.File_Violation')).toMatchObject({ id: 'CUSTOM_FILES.File_Violation', parent: 'CUSTOM_FILES' });
  });

  it('gives desired and live the same canonical specs', async () => {
    const live = await liveOf({ data: PROFILES });
    for (const desired of desiredOf(AlertProfile, PROFILE_DOC)) expect(byName(live, desired.name).spec).toEqual(desired.spec);
  });

  it('makes one list call for both kinds', async () => {
    const ctx = fetchCtx({ [LIST]: { data: PROFILES } });
    await Promise.all([AlertProfile.list(ctx), AlertTemplate.list(ctx)]);
    expect(ctx.calls).toEqual([LIST, LIST]);
    expect(ctx.fetched).toEqual([LIST]);
    expect(AlertTemplate.collection).toBe(AlertProfile.collection);
    expect(bucketOf('GET', apiPath(AlertTemplate.collection))).toBe('GET AlertProfiles');
  });

  it('exports a custom profile with its templates, nothing for predefined ones or templates alone', async () => {
    const live = await liveOf(PROFILES);
    const templates = live.filter((r) => r.kind === 'AlertTemplate');
    const exported = (AlertProfile.export?.toDocument(byName(live, 'CUSTOM_FILES'), templates) ?? null);
    expect(exported).toEqual({ kind: 'AlertProfile', name: 'CUSTOM_FILES', spec: { extends: 'SVC_FILES_PROFILE', alerts: [FILE_VIOLATION] } });
    expect((AlertProfile.export?.toDocument(byName(live, 'SVC_FILES_PROFILE'), templates) ?? null)).toBeNull();
    expect((AlertTemplate.export?.toDocument(byName(live, 'CUSTOM_FILES.File_Violation'), []) ?? null)).toBeNull();

    const again = desiredOf(AlertProfile, doc('AlertProfile', exported!.name, exported!.spec));
    expect(again.map((r) => [r.name, r.spec])).toEqual([
      ['CUSTOM_FILES', byName(live, 'CUSTOM_FILES').spec],
      ['CUSTOM_FILES.File_Violation', byName(live, 'CUSTOM_FILES.File_Violation').spec],
    ]);
  });
});

describe('checks against live state', () => {
  const template = (subject: string, ext = 'SVC_FILES_PROFILE', parent = 'CUSTOM_FILES'): DesiredResource =>
    desiredOf(AlertProfile, doc('AlertProfile', parent, { extends: ext, alerts: [{ ...FILE_VIOLATION, subject }] }, { positions: { '/alerts/0': { file: FILE, line: 12, column: 7 } } }))[1];

  it('accepts placeholders the profile offers', async () => {
    expect(AlertTemplate.check!(template('{{PATH}} on {{ MID }}'), await liveOf(PROFILES))).toEqual([]);
  });

  it('reports an unknown placeholder with the template position and the allowed keys', async () => {
    const diagnostics = AlertTemplate.check!(template('{{PATH}} by {{USER}} {{USER}}'), await liveOf(PROFILES));
    expect(diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'unknown-placeholder',
        file: FILE,
        line: 12,
        column: 7,
        field: '/spec/alerts/0/subject',
        hint: 'allowed: {{MID}}, {{PATH}}, {{_OCCURRENCE}}',
      }),
    ]);
    expect(diagnostics[0].message).toContain('{{USER}}');
  });

  it('checks a profile not created yet against the base it extends', async () => {
    const live = await liveOf(PROFILES);
    expect(AlertTemplate.check!(template('{{PATH}}', 'SVC_FILES_PROFILE', 'NEW_PROFILE'), live)).toEqual([]);
    expect(AlertTemplate.check!(template('{{NOPE}}', 'SVC_FILES_PROFILE', 'NEW_PROFILE'), live)).toMatchObject([{ code: 'unknown-placeholder' }]);
    // A new base (a replace): its keys count, not those of the live profile.
    expect(AlertTemplate.check!(template('{{PATH}}', 'SVC_CLOUD_PROFILE'), live)).toMatchObject([
      { code: 'unknown-placeholder', field: '/spec/alerts/0/subject', hint: 'allowed: {{RESOURCE_ID}}, {{_OCCURRENCE}}' },
    ]);
    expect(AlertTemplate.check!(template('{{PATH}}', 'SVC_EMPTY_PROFILE'), live)).toMatchObject([
      { code: 'unknown-placeholder', field: '/spec/alerts/0/subject', hint: 'profile SVC_EMPTY_PROFILE offers no placeholders' },
      { code: 'unknown-placeholder', field: '/spec/alerts/0/description' },
    ]);
    // Bases that may not be extended are validation's to report.
    expect(AlertTemplate.check!(template('{{NOPE}}', 'SVC_BASE_PROFILE'), live)).toEqual([]);
  });

  it('checks that a profile extends an existing predefined profile with templates', async () => {
    const live = await liveOf(PROFILES);
    const profile = (ext: string) => desiredOf(AlertProfile, doc('AlertProfile', 'P', { extends: ext, alerts: [] }))[0];
    expect(AlertProfile.check!(profile('SVC_FILES_PROFILE'), live)).toEqual([]);
    expect(AlertProfile.check!(profile('SVC_GONE'), live)).toMatchObject([
      { code: 'unknown-base-profile', field: '/spec/extends', hint: 'predefined profiles: SVC_CLOUD_PROFILE, SVC_EMPTY_PROFILE, SVC_FILES_PROFILE' },
    ]);
    expect(AlertProfile.check!(profile('SVC_EMPTY_PROFILE'), live)).toMatchObject([{ code: 'base-profile-without-templates' }]);
    expect(AlertProfile.check!(profile('SVC_GONE'), live.filter((r) => r.account === 'staging'))).toMatchObject([{ code: 'unknown-base-profile' }]);
    // The root and custom bases are validation's to report.
    expect(AlertProfile.check!(profile('SVC_BASE_PROFILE'), live)).toEqual([]);
    expect(AlertProfile.check!(profile('CUSTOM_FILES'), live)).toEqual([]);
  });
});

describe('AlertProfile and AlertTemplate: requests', () => {
  const [profile, ...templates] = desiredOf(AlertProfile, PROFILE_DOC);
  const ctx = requestCtx();
  const org = requestCtx({}, { account: 'organization', orgAccess: true });

  it('creates a profile with its templates in one request', () => {
    expect(AlertProfile.createRequest(profile, templates, ctx)).toEqual({
      method: 'POST',
      path: '/api/v2/AlertProfiles',
      account: 'prod',
      orgAccess: false,
      body: { alertProfileId: 'CUSTOM_FILES', extends: 'SVC_FILES_PROFILE', alerts: [FILE_VIOLATION] },
    });
    // Children rebuilt from a plan may carry the bare template name.
    const bare = templates.map((t) => ({ ...t, name: 'File_Violation' }));
    expect(AlertProfile.createRequest(profile, bare, ctx).body).toMatchObject({ alerts: [{ name: 'File_Violation' }] });
    expect(AlertProfile.createdId([{ alertProfileId: 'CUSTOM_FILES' }], profile)).toBe('CUSTOM_FILES');
    expect(AlertProfile.hierarchy?.ownsChildren).toBe(true);
    expect((AlertProfile.compare?.replaceOn ?? [])).toEqual(['extends']);
  });

  it('has nothing to patch on a profile and deletes it by id', () => {
    expect(AlertProfile.updateRequests('CUSTOM_FILES', profile, ['extends'], ctx)).toEqual([]);
    expect(AlertProfile.deleteRequest('CUSTOM FILES', org)).toEqual({ method: 'DELETE', path: '/api/v2/AlertProfiles/CUSTOM%20FILES', account: undefined, orgAccess: true });
  });

  it('creates, patches and deletes a template under its profile', () => {
    const [t] = desiredOf(AlertProfile, doc('AlertProfile', 'CUSTOM_FILES', { extends: 'SVC_FILES_PROFILE', alerts: [{ ...FILE_VIOLATION, name: 'File Violation' }] })).slice(1);
    expect(AlertTemplate.createRequest(t, [], ctx)).toEqual({
      method: 'POST',
      path: '/api/v2/AlertProfiles/CUSTOM_FILES/AlertTemplates',
      account: 'prod',
      orgAccess: false,
      body: { name: 'File Violation', eventName: 'Changed file', subject: '{{PATH}} changed on {{MID}}', description: '{{_OCCURRENCE}}' },
    });
    expect(AlertTemplate.createdId([], t)).toBe('CUSTOM_FILES.File Violation');
    expect(AlertTemplate.updateRequests('CUSTOM_FILES.File Violation', t, ['subject'], ctx)).toEqual([
      {
        method: 'PATCH',
        path: '/api/v2/AlertProfiles/CUSTOM_FILES/AlertTemplates/File%20Violation',
        account: 'prod',
        orgAccess: false,
        body: { subject: '{{PATH}} changed on {{MID}}' },
      },
    ]);
    expect(AlertTemplate.updateRequests('CUSTOM_FILES.File Violation', t, [], ctx)).toEqual([]);
    expect(AlertTemplate.deleteRequest('CUSTOM_FILES.File Violation', ctx)).toEqual({
      method: 'DELETE',
      path: '/api/v2/AlertProfiles/CUSTOM_FILES/AlertTemplates/File%20Violation',
      account: 'prod',
      orgAccess: false,
    });
    expect(AlertTemplate.hierarchy?.parentKind).toBe('AlertProfile');
  });
});

describe('predefined profiles by a configurable prefix (root setting predefinedProfilePrefix)', () => {
  const records: JsonObject[] = [
    { alertProfileId: 'SVC_Aws_Cis_Mixed', alerts: [{ name: 'T', eventName: 'e', subject: 's', description: 'd' }] },
    { alertProfileId: 'ACME_BASE', alerts: [{ name: 'T', eventName: 'e', subject: 's', description: 'd' }] },
    { alertProfileId: 'CUSTOM_ONE', extends: 'SVC_Aws_Cis_Mixed', alerts: [] },
  ];
  const managed = async (settings?: JsonObject) => {
    const ctx = { ...fetchCtx({ [LIST]: { data: records } }), ...(settings ? { settings } : {}) };
    const [profiles, templates] = [await AlertProfile.list(ctx), await AlertTemplate.list(ctx)];
    return [...profiles, ...templates].filter((r) => r.managedByService).map((r) => r.name);
  };

  it('marks the service profiles (mixed case after the prefix) and their templates; never exports them', async () => {
    expect(await managed()).toEqual(['SVC_Aws_Cis_Mixed', 'SVC_Aws_Cis_Mixed.T']);
    expect(await managed({ predefinedProfilePrefix: 'ACME_' })).toEqual(['ACME_BASE', 'ACME_BASE.T']);
    const ctx = fetchCtx({ [LIST]: { data: records } });
    const [svc] = await AlertProfile.list(ctx);
    expect((AlertProfile.export?.toDocument(svc, []) ?? null)).toBeNull();
  });

  it('reserves the configured prefix for custom ids', () => {
    const at = () => ({ file: 'p.yaml', line: 1, column: 1 });
    const docOf = (name: string) => ({ kind: 'AlertProfile', name, spec: { extends: 'ACME_BASE' } });
    const codes = (name: string, settings?: JsonObject) => (AlertProfile.documents?.check?.(docOf(name), at, settings) ?? []).map((d) => d.code);
    expect(codes('ACME_MINE', { predefinedProfilePrefix: 'ACME_' })).toEqual(['profile-reserved-id']);
    expect(codes('ACME_MINE')).toEqual(['profile-extends-custom']);
    expect(AlertProfile.rootSettings).toHaveProperty('predefinedProfilePrefix');
  });
});
