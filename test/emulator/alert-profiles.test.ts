import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { boot, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await boot();
});
afterEach(() => h.close());

const template = (name: string, subject = '{{PATH}} changed on {{MID}}') => ({
  name,
  eventName: 'Changed file',
  description: '{{_OCCURRENCE}}',
  subject,
});
const profile = (id: string, alerts = [template('File_Violation')], parent = 'SVC_HE_FILES_DEFAULT_PROFILE') => ({
  alertProfileId: id,
  extends: parent,
  alerts,
});

describe('AlertProfiles', () => {
  it('lists the predefined profiles in every account, with fields, descriptionKeys and templates', async () => {
    for (const account of ['prod', 'staging']) {
      const r = await h.call('GET', 'AlertProfiles', { account });
      const ids = r.body.data.map((p: any) => p.alertProfileId);
      expect(ids).toEqual(expect.arrayContaining(['SVC_BASE_PROFILE', 'SVC_HE_FILES_DEFAULT_PROFILE', 'SVC_CLOUD_ACTIVITY_DEFAULT_PROFILE', 'SVC_HE_USER_DEFAULT_PROFILE']));
    }
    const files = (await h.call('GET', 'AlertProfiles/SVC_HE_FILES_DEFAULT_PROFILE')).body.data;
    expect(files.extends).toBe('SVC_BASE_PROFILE');
    expect(files.fields).toEqual(expect.arrayContaining([{ name: 'PATH' }, { name: 'MID' }]));
    expect(files.descriptionKeys).toEqual(expect.arrayContaining([{ name: '_OCCURRENCE', spec: '{{_OCCURRENCE}}' }]));
    expect(files.alerts.length).toBeGreaterThan(0);
    const root = (await h.call('GET', 'AlertProfiles/SVC_BASE_PROFILE')).body.data;
    expect(root.alerts).toEqual([]);
  });

  it('creates a custom profile that lists only its own templates and inherits the rest', async () => {
    const r = await h.call('POST', 'AlertProfiles', { body: profile('CUSTOM_FILES') });
    expect(r.status).toBe(201);
    expect(Array.isArray(r.body.data)).toBe(true);
    const p = r.body.data[0];
    expect(p.alertProfileId).toBe('CUSTOM_FILES');
    expect(p.alerts).toEqual([template('File_Violation')]);
    const parent = (await h.call('GET', 'AlertProfiles/SVC_HE_FILES_DEFAULT_PROFILE')).body.data;
    expect(p.fields).toEqual(parent.fields);
    expect(p.descriptionKeys).toEqual(parent.descriptionKeys);
    const detail = await h.call('GET', 'AlertProfiles/CUSTOM_FILES');
    expect(detail.body.data.alertProfileId).toBe('CUSTOM_FILES');
    expect((await h.call('GET', 'AlertProfiles/CUSTOM_FILES', { account: 'staging' })).status).toBe(404);
    expect((await h.call('POST', 'AlertProfiles', { body: profile('CUSTOM_FILES') })).status).toBe(409);
  });

  it('refuses the SVC_ prefix, extending the root, a custom or unknown parent', async () => {
    const prefix = await h.call('POST', 'AlertProfiles', { body: profile('SVC_MINE') });
    expect(prefix.status).toBe(400);
    expect(prefix.body.message).toContain('alertProfileId');
    const root = await h.call('POST', 'AlertProfiles', { body: profile('MINE', [], 'SVC_BASE_PROFILE') });
    expect(root.status).toBe(400);
    expect(root.body.message).toContain('cannot be extended');
    await h.call('POST', 'AlertProfiles', { body: profile('BASE') });
    const custom = await h.call('POST', 'AlertProfiles', { body: profile('CHILD', [], 'BASE') });
    expect(custom.status).toBe(400);
    expect(custom.body.message).toContain('not a predefined alert profile');
  });

  it('refuses placeholders outside the descriptionKeys, naming the key', async () => {
    const r = await h.call('POST', 'AlertProfiles', { body: profile('BAD', [template('T', '{{NOPE}} happened')]) });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('alerts/0/subject: unknown placeholder {{NOPE}}');
    const dup = await h.call('POST', 'AlertProfiles', { body: profile('DUP', [template('T'), template('T')]) });
    expect(dup.body.message).toContain('alerts/1/name: duplicate template name T');
  });

  it('keeps predefined profiles read-only (403)', async () => {
    const patch = await h.call('PATCH', 'AlertProfiles/SVC_HE_FILES_DEFAULT_PROFILE', { body: { alerts: [] } });
    expect(patch.status).toBe(403);
    expect(patch.body.message).toContain('predefined');
    expect((await h.call('DELETE', 'AlertProfiles/SVC_HE_FILES_DEFAULT_PROFILE')).status).toBe(403);
    expect((await h.call('POST', 'AlertProfiles/SVC_HE_FILES_DEFAULT_PROFILE/AlertTemplates', { body: template('X') })).status).toBe(403);
    expect((await h.call('DELETE', 'AlertProfiles/SVC_HE_FILES_DEFAULT_PROFILE/AlertTemplates/HE_File_Violation')).status).toBe(403);
  });

  it('patches templates of a custom profile but not its fields', async () => {
    await h.call('POST', 'AlertProfiles', { body: profile('P1') });
    const p = await h.call('PATCH', 'AlertProfiles/P1', { body: { alerts: [template('A'), template('B')] } });
    expect(p.status).toBe(200);
    expect(p.body.data[0].alerts.map((t: any) => t.name)).toEqual(['A', 'B']);
    const fields = await h.call('PATCH', 'AlertProfiles/P1', { body: { alerts: [], fields: [{ name: 'X' }] } });
    expect(fields.status).toBe(400);
    expect(fields.body.message).toContain('fields: cannot be changed');
    const echoed = (await h.call('GET', 'AlertProfiles/P1')).body.data;
    expect((await h.call('PATCH', 'AlertProfiles/P1', { body: echoed })).status).toBe(200);
  });

  it('manages templates: create (409 on duplicates), patch, delete', async () => {
    await h.call('POST', 'AlertProfiles', { body: profile('P2', []) });
    const created = await h.call('POST', 'AlertProfiles/P2/AlertTemplates', { body: template('T1') });
    expect(created.status).toBe(200);
    expect(created.body.data[0].alerts.map((t: any) => t.name)).toEqual(['T1']);
    const dup = await h.call('POST', 'AlertProfiles/P2/AlertTemplates', { body: template('T1') });
    expect(dup.status).toBe(409);
    const missing = await h.call('POST', 'AlertProfiles/P2/AlertTemplates', { body: { name: 'T2' } });
    expect(missing.body.message).toBe('Invalid data: #1: [eventName: required], #2: [description: required], #3: [subject: required]');
    const patched = await h.call('PATCH', 'AlertProfiles/P2/AlertTemplates/T1', { body: { subject: 'now {{PATH}}' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data[0].alerts[0]).toMatchObject({ name: 'T1', subject: 'now {{PATH}}', eventName: 'Changed file' });
    const bad = await h.call('PATCH', 'AlertProfiles/P2/AlertTemplates/T1', { body: { description: '{{USERNAME}}' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('{{USERNAME}}');
    expect((await h.call('PATCH', 'AlertProfiles/P2/AlertTemplates/NOPE', { body: {} })).status).toBe(404);
    expect((await h.call('DELETE', 'AlertProfiles/P2/AlertTemplates/T1')).status).toBe(204);
    expect((await h.call('GET', 'AlertProfiles/P2')).body.data.alerts).toEqual([]);
    expect((await h.call('DELETE', 'AlertProfiles/P2')).status).toBe(204);
    expect((await h.call('GET', 'AlertProfiles/P2')).status).toBe(404);
  });

  it('has no search (405)', async () => {
    expect((await h.call('POST', 'AlertProfiles/search', { body: {} })).status).toBe(405);
  });
});
