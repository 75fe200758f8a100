// Issue 9 item 3: live members a file does not declare are neither a change nor lost. The diff
// compares what the file declares (null removes), and an update carries the rest of a `data` object
// the service replaces whole. Pure cases on the registered kinds, then one apply against the emulator.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import type { ApiClient } from '../../src/api/types.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { apply } from '../../src/ops/apply/apply.js';
import { carriedSpec, declaredLive, withoutNulls } from '../../src/plan/core/declared.js';
import { diffResource } from '../../src/plan/core/diff.js';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { plan } from '../../src/plan/steps/plan.js';
import { KINDS, kindForDocument } from '../../src/kinds/index.js';
import type { DesiredState } from '../../src/model/account.js';
import type { JsonObject } from '../../src/model/json.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import { rawApi } from '../e2e/harness.js';

const Channel = kindForDocument('AlertChannel')!;
const Cloud = kindForDocument('CloudAccount')!;
const ctx = { account: 'prod', orgAccess: false, resolve: () => 'unused' };

function desired(kind: string, spec: JsonObject, name = 'x'): DesiredResource {
  const r = kindForDocument(kind)!.fromDocument({ kind, name, account: 'prod', spec, envRefs: {}, source: { file: 'f.yaml', line: 1, column: 1 }, positions: {} });
  return r.resources[0];
}

const live = (kind: string, spec: JsonObject): LiveResource => ({ kind, account: 'prod', name: 'x', id: 'ID1', spec });

const EMAIL_LIVE = {
  type: 'EmailUser',
  enabled: true,
  data: { channelProps: { recipients: ['a@example.com'] }, notificationTypes: { properties: { weekly: true } } },
};

describe('declared members (pure)', () => {
  it('helpers: compare what is declared, carry the rest, null removes', () => {
    const l = { data: { a: 1, b: { c: 2, d: 3 }, e: 4 } };
    const d = { data: { a: 1, b: { c: 5 }, e: null } };
    expect(declaredLive(l, d, ['/data'])).toEqual({ data: { a: 1, b: { c: 2 }, e: 4 } });
    expect(withoutNulls(d, ['/data'])).toEqual({ data: { a: 1, b: { c: 5 } } });
    expect(carriedSpec(l, d, ['/data'])).toEqual({ data: { a: 1, b: { c: 5, d: 3 } } });
    // Outside the open objects nothing is carried.
    expect(carriedSpec({ data: { a: 1 }, x: 1 }, { data: {} }, [])).toEqual({ data: {} });
  });

  it('withoutNulls copies only an open object that holds a null, at any depth of its objects', () => {
    const clean = { type: 'Webhook', data: { a: 1, b: { c: [null, 2] } } };
    // Nothing to strip (a null inside an array is a value, as before): the very spec, not a copy.
    expect(withoutNulls(clean, ['/data'])).toBe(clean);
    const deep = { type: 'Webhook', data: { a: 1, b: { c: { d: null, e: 2 } } } };
    expect(withoutNulls(deep, ['/data'])).toEqual({ type: 'Webhook', data: { a: 1, b: { c: { e: 2 } } } });
    expect(deep.data.b.c).toEqual({ d: null, e: 2 });
    expect(withoutNulls({ data: { a: null } }, [''])).toEqual({ data: {} });
    // A `__proto__` member takes the copying path, as it always did.
    const proto = JSON.parse('{"data":{"__proto__":{"x":1}}}') as JsonObject;
    expect(withoutNulls(proto, ['/data'])).not.toBe(proto);
  });

  it('null in the file and null in the service are equal; null against a value still removes it', () => {
    const jira = { type: 'Jira', data: { jiraType: 'JIRA_CLOUD', jiraUrl: 'https://x.atlassian.net', projectId: 'P', issueType: 'Bug', username: 'u', customTemplateFile: null, extra: { deep: null } } };
    const same = diffResource(Channel, desired('AlertChannel', jira), live('AlertChannel', { ...jira, enabled: true }));
    expect(same.changed).toEqual([]);
    expect(same.diff).toEqual([]);
    const held = diffResource(Channel, desired('AlertChannel', jira), live('AlertChannel', { ...jira, enabled: true, data: { ...jira.data, customTemplateFile: 'tpl' } }));
    expect(held.diff).toEqual([{ op: 'remove', path: '/data/customTemplateFile' }]);
    // An update for another reason carries the live null as the service holds it.
    expect(carriedSpec({ data: { a: null, b: 1 } }, { data: { a: null, b: 2 } }, ['/data'])).toEqual({ data: { a: null, b: 2 } });
  });

  it('a live member the file does not name is no change', () => {
    const diff = diffResource(Channel, desired('AlertChannel', { type: 'EmailUser', data: { channelProps: { recipients: ['a@example.com'] } } }), live('AlertChannel', EMAIL_LIVE));
    expect(diff.changed).toEqual([]);
    expect(diff.diff).toEqual([]);
  });

  it('an update keeps the live member the file does not name, and shows only the declared change', () => {
    const d = desired('AlertChannel', { type: 'EmailUser', data: { channelProps: { recipients: ['b@example.com'] } } });
    const diff = diffResource(Channel, d, live('AlertChannel', EMAIL_LIVE));
    expect(diff.changed).toEqual(['data']);
    expect(diff.diff.map((op) => op.path)).toEqual(['/data/channelProps/recipients/0']);
    const [req] = Channel.updateRequests('ID1', { ...d, spec: diff.after }, diff.changed, ctx);
    expect(req.method).toBe('PATCH');
    expect(req.body).toEqual({
      data: { channelProps: { recipients: ['b@example.com'] }, notificationTypes: { properties: { weekly: true } } },
    });
  });

  it('null in the file removes the live member', () => {
    const d = desired('AlertChannel', { type: 'EmailUser', data: { channelProps: { recipients: ['a@example.com'] }, notificationTypes: null } });
    const diff = diffResource(Channel, d, live('AlertChannel', EMAIL_LIVE));
    expect(diff.changed).toEqual(['data']);
    expect(diff.diff).toEqual([{ op: 'remove', path: '/data/notificationTypes' }]);
    expect(diff.after.data).toEqual({ channelProps: { recipients: ['a@example.com'] } });
  });

  it('a change of type carries nothing of the old type', () => {
    const bus = 'arn:aws:events:us-east-1:123456789012:event-bus/default';
    const d = desired('AlertChannel', { type: 'CloudwatchEb', data: { eventBusArn: bus } });
    const diff = diffResource(Channel, d, live('AlertChannel', EMAIL_LIVE));
    expect(diff.after.data).toEqual({ eventBusArn: bus });
    expect(diff.changed).toEqual(['data', 'type']);
  });

  it('an unknown type is diffed member by member and sent as written', () => {
    const liveSpec = { type: 'GcpAgentlessOrg', enabled: true, data: { scanFrequency: 24, projects: ['a'], extra: { z: 1 } } };
    const same = diffResource(Cloud, desired('CloudAccount', { type: 'GcpAgentlessOrg', data: { scanFrequency: 24 } }), live('CloudAccount', liveSpec));
    expect(same.changed).toEqual([]);
    const d = desired('CloudAccount', { type: 'GcpAgentlessOrg', data: { scanFrequency: 12 } });
    const changed = diffResource(Cloud, d, live('CloudAccount', liveSpec));
    expect(changed.diff).toEqual([{ op: 'replace', path: '/data/scanFrequency', value: 12 }]);
    const [req] = Cloud.updateRequests('ID1', { ...d, spec: changed.after }, changed.changed, ctx);
    expect(req.body).toEqual({ data: { scanFrequency: 12, projects: ['a'], extra: { z: 1 } } });
  });
});

describe('declared members against the emulator', () => {
  let emu: RunningEmulator;
  let client: ApiClient;
  const ACCOUNTS = [{ name: 'prod', orgAccess: false }];
  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret });
  });
  afterAll(async () => {
    await client?.close();
    await emu?.close();
  });

  it('plans, applies and keeps the notificationTypes the service holds and the file never wrote', async () => {
    const created = await rawApi(emu, 'POST', '/api/v2/AlertChannels', {
      account: 'prod',
      body: { name: 'mail', type: 'EmailUser', enabled: 1, data: { channelProps: { recipients: ['a@example.com'] }, notificationTypes: { properties: { weekly: true } } } },
    });
    expect(created.status).toBe(201);
    const state: DesiredState = {
      root: { file: 'postureops.yaml', accounts: ACCOUNTS, defaultAccount: 'prod', prune: Object.fromEntries(KINDS.map((k) => [k.kind, false])) },
      resources: [desired('AlertChannel', { type: 'EmailUser', data: { channelProps: { recipients: ['a@example.com', 'b@example.com'] } } }, 'mail')],
    };
    const first = plan(state, await fetchLive(client, ACCOUNTS, KINDS), {}).plan!;
    expect(first.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['update prod/AlertChannel/mail']);
    const report = await apply(first, client, { env: {} });
    expect(report.results.map((r) => r.status)).toEqual(['done']);

    const after = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
    expect(after.body.data[0].data).toEqual({
      channelProps: { recipients: ['a@example.com', 'b@example.com'] },
      notificationTypes: { properties: { weekly: true } },
    });
    expect(plan(state, await fetchLive(client, ACCOUNTS, KINDS), {}).plan!.changes).toEqual([]);
  });
});

describe('declared members where one side holds no open object', () => {
  it('live as the file sees it is the live spec as it is when either side has no object there', () => {
    expect(declaredLive({ type: 'X' }, { type: 'X', data: { a: 1 } }, ['/data'])).toEqual({ type: 'X' });
    expect(declaredLive({ type: 'X', data: { a: 1 } }, { type: 'X' }, ['/data'])).toEqual({ type: 'X', data: { a: 1 } });
    expect(declaredLive({ data: 'text' }, { data: { a: 1 } }, ['/data'])).toEqual({ data: 'text' });
  });

  it('a live null the file sets to a value is seen as the null it is (a change), not as a member the service lacks', () => {
    expect(declaredLive({ data: { a: null, b: 2 } }, { data: { a: 1 } }, ['/data'])).toEqual({ data: { a: null } });
  });
});
