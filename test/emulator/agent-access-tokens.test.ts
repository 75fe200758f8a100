import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock, type ManualClock } from '../../src/emulator/index.js';
import { boot, type Harness } from './helpers.js';

let h: Harness;
let clock: ManualClock;
beforeEach(async () => {
  clock = manualClock(Date.parse('2026-03-01T12:00:00.000Z'));
  h = await boot({ clock });
});
afterEach(() => h.close());

const create = (tokenAlias: string, tokenEnabled = '1') => h.call('POST', 'AgentAccessTokens', { body: { tokenAlias, tokenEnabled } });
const aliases = (r: { body: any }) => r.body.data.map((t: any) => t.tokenAlias).sort();

describe('AgentAccessTokens (seed 001)', () => {
  it('creates a token: 201 {data} with a long hex accessToken, times, props, alias, enabled, version', async () => {
    const r = await create('k8s');
    expect(r.status).toBe(201);
    const t = r.body.data;
    expect(Object.keys(t).sort()).toEqual(['accessToken', 'createdTime', 'props', 'tokenAlias', 'tokenEnabled', 'version']);
    expect(t.accessToken).toMatch(/^[0-9A-Fa-f]{32,}$/);
    expect(t).toMatchObject({ tokenAlias: 'k8s', tokenEnabled: '1', createdTime: '2026-03-01T12:00:00.000Z' });
    expect(t.props).toEqual({ createdTime: '2026-03-01T12:00:00.000Z', description: '' });
    expect(typeof t.version).toBe('string');
    // The accessToken is the {id} of the path.
    expect((await h.call('GET', `AgentAccessTokens/${t.accessToken}`)).body.data).toEqual(t);
  });

  it.each([
    [{ tokenEnabled: '1' }, 'tokenAlias: required'],
    [{ tokenAlias: 'a' }, 'tokenEnabled: required'],
    [{ tokenAlias: '', tokenEnabled: '1' }, 'tokenAlias: must not be shorter than 1 character'],
    [{ tokenAlias: 'a', tokenEnabled: '' }, 'tokenEnabled: must not be shorter than 1 character'],
    [{ tokenAlias: 'a', tokenEnabled: 1 }, 'tokenEnabled: must be string'],
    [{ tokenAlias: ['a'], tokenEnabled: '1' }, 'tokenAlias: must be string'],
  ])('refuses the create body %j with 400', async (body, message) => {
    const r = await h.call('POST', 'AgentAccessTokens', { body });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain(message);
    expect((await h.call('GET', 'AgentAccessTokens')).body.data).toEqual([]);
  });

  it('keeps members the create body does not define out of the token; props.description is kept', async () => {
    const r = await h.call('POST', 'AgentAccessTokens', { body: { tokenAlias: 'a', tokenEnabled: '1', props: { description: 'x' }, version: '9' } });
    expect(r.status).toBe(201);
    expect(r.body.data.props.description).toBe('x');
    expect(r.body.data.version).not.toBe('9');
    const plain = await h.call('POST', 'AgentAccessTokens', { body: { tokenAlias: 'b', tokenEnabled: '1' } });
    expect(plain.body.data.props.description).toBe('');
  });

  it('lists and searches enabled tokens only; reads any token by id', async () => {
    const on = (await create('on')).body.data;
    const off = (await create('off', '0')).body.data;
    expect(aliases(await h.call('GET', 'AgentAccessTokens'))).toEqual(['on']);
    expect(aliases(await h.call('POST', 'AgentAccessTokens/search', { body: {} }))).toEqual(['on']);
    const byAlias = await h.call('POST', 'AgentAccessTokens/search', { body: { filters: [{ field: 'tokenAlias', expression: 'eq', value: 'off' }] } });
    expect(byAlias.body.data).toEqual([]);
    expect((await h.call('GET', `AgentAccessTokens/${off.accessToken}`)).body.data.tokenEnabled).toBe('0');
    expect((await h.call('GET', `AgentAccessTokens/${on.accessToken}`)).body.data.tokenAlias).toBe('on');
    expect((await h.call('GET', 'AgentAccessTokens/0123456789ABCDEF')).status).toBe(404);
  });

  it('searches by the filterable fields the seed lists, with returns; other fields are refused', async () => {
    const a = (await create('a')).body.data;
    await create('b');
    const r = await h.call('POST', 'AgentAccessTokens/search', {
      body: { filters: [{ field: 'accessToken', expression: 'eq', value: a.accessToken }], returns: ['tokenAlias'] },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ tokenAlias: 'a' }]);
    const bad = await h.call('POST', 'AgentAccessTokens/search', { body: { filters: [{ field: 'props.description', expression: 'eq', value: '' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('filters/0/field');
  });

  it('PATCH changes tokenEnabled and the description, nothing else', async () => {
    const t = (await create('k8s')).body.data;
    clock.advance(60_000);
    const off = await h.call('PATCH', `AgentAccessTokens/${t.accessToken}`, {
      body: { tokenEnabled: '0', tokenAlias: 'renamed', version: '9' },
    });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ ...t, tokenEnabled: '0' });
    const described = await h.call('PATCH', `AgentAccessTokens/${t.accessToken}`, { body: { props: { description: 'd' } } });
    expect(described.body.data).toEqual({ ...t, tokenEnabled: '0', props: { ...t.props, description: 'd' } });
    await h.call('PATCH', `AgentAccessTokens/${t.accessToken}`, { body: { props: { description: '' } } });
    expect((await h.call('GET', 'AgentAccessTokens')).body.data).toEqual([]);
    const on = await h.call('PATCH', `AgentAccessTokens/${t.accessToken}`, { body: { tokenEnabled: '1' } });
    expect(on.body.data).toEqual(t);
    expect(aliases(await h.call('GET', 'AgentAccessTokens'))).toEqual(['k8s']);
    // tokenEnabled is optional on update.
    const empty = await h.call('PATCH', `AgentAccessTokens/${t.accessToken}`, { body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual(t);
  });

  it('PATCH refuses an empty or non-string tokenEnabled and an unknown id', async () => {
    const t = (await create('k8s')).body.data;
    const blank = await h.call('PATCH', `AgentAccessTokens/${t.accessToken}`, { body: { tokenEnabled: '' } });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toContain('tokenEnabled: must not be shorter than 1 character');
    expect((await h.call('PATCH', `AgentAccessTokens/${t.accessToken}`, { body: { tokenEnabled: 0 } })).status).toBe(400);
    expect((await h.call('GET', `AgentAccessTokens/${t.accessToken}`)).body.data.tokenEnabled).toBe('1');
    expect((await h.call('PATCH', 'AgentAccessTokens/0123456789ABCDEF', { body: { tokenEnabled: '0' } })).status).toBe(404);
  });

  it('cannot be deleted or replaced (405)', async () => {
    const t = (await create('k8s')).body.data;
    const del = await h.call('DELETE', `AgentAccessTokens/${t.accessToken}`);
    expect(del.status).toBe(405);
    expect(del.headers.get('Allow')).not.toContain('DELETE');
    expect((await h.call('PUT', `AgentAccessTokens/${t.accessToken}`, { body: { tokenEnabled: '1', tokenAlias: 'x' } })).status).toBe(405);
    expect((await h.call('DELETE', 'AgentAccessTokens')).status).toBe(405);
    expect(aliases(await h.call('GET', 'AgentAccessTokens'))).toEqual(['k8s']);
  });
});
