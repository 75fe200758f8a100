import { describe, expect, it } from 'vitest';
import { ApiError, type ApiRequest } from '../../src/api/types.js';
import { fetchLive, readsOf } from '../../src/ops/live/fetch.js';
import { neededKinds, planNeeds, unreadKinds } from '../../src/ops/live/needed-kinds.js';
import type { Kind } from '../../src/kinds/types.js';
import type { DesiredResource } from '../../src/model/resource.js';
import { ACCOUNTS, Channel, FAKE_KINDS, FakeClient, Profile, Rule, Template } from './plan-fakes.js';

const SearchableChannel: Kind = { ...Channel, searchable: true };

describe('readsOf', () => {
  it('reads a list with a search through either, through the search only, or through the list only', () => {
    const kinds = [SearchableChannel, Rule];
    expect(readsOf(kinds).get('/api/v2/AlertChannels')).toEqual({
      method: 'GET',
      path: '/api/v2/AlertChannels',
      alternative: { method: 'POST', path: '/api/v2/AlertChannels/search', body: {} },
    });
    expect(readsOf(kinds, 'search').get('/api/v2/AlertChannels')).toEqual({ method: 'POST', path: '/api/v2/AlertChannels/search', body: {} });
    expect(readsOf(kinds, 'list').size).toBe(0);
    // A kind without a search is read with its list whatever is asked.
    expect(readsOf(kinds, 'search').has('/api/v2/AlertRules')).toBe(false);
  });
});

describe('fetchLive reads', () => {
  it('sends a search as the alternative of the list, with the account headers of the list', async () => {
    const client = new FakeClient({ prod: { '/api/v2/AlertChannels': { data: [{ intgGuid: 'P1', name: 'ops', type: 'Webhook', data: {} }] } } });
    await fetchLive(client, [ACCOUNTS[0]], [SearchableChannel]);
    expect(client.requests).toEqual([
      { method: 'GET', path: '/api/v2/AlertChannels', account: 'prod', orgAccess: undefined, alternative: { method: 'POST', path: '/api/v2/AlertChannels/search', body: {} } },
    ]);
  });

  it('a search the service refuses is read as the list, and not tried again in the run', async () => {
    const table = { data: [{ intgGuid: 'P1', name: 'ops', type: 'Webhook', data: {} }] };
    const sent: string[] = [];
    // Sends the alternative when there is one (as a client whose list budget is spent would).
    const client = new (class extends FakeClient {
      override async request<T>(req: ApiRequest) {
        const chosen = req.alternative ? { ...req, ...req.alternative } : req;
        sent.push(`${chosen.method} ${chosen.account} ${chosen.path}`);
        if (chosen.path.endsWith('/search'))
          throw new ApiError({ kind: 'permanent', status: 400, method: chosen.method, path: chosen.path, serviceMessage: 'Invalid data' });
        return super.request<T>(chosen);
      }
    })({ prod: { '/api/v2/AlertChannels': table }, staging: { '/api/v2/AlertChannels': table } });
    const state = await fetchLive(client, ACCOUNTS, [SearchableChannel], { concurrency: 1 });
    expect(sent).toEqual(['POST prod /api/v2/AlertChannels/search', 'GET prod /api/v2/AlertChannels', 'GET staging /api/v2/AlertChannels']);
    expect(state.resources.map((r) => `${r.account} ${r.id}`)).toEqual(['prod P1', 'staging P1']);
  });

  it('a search failing otherwise (a 500 after retries) fails the read', async () => {
    const client = new (class extends FakeClient {
      override async request<T>(req: ApiRequest): Promise<never> {
        const chosen = req.alternative ? { ...req, ...req.alternative } : req;
        throw new ApiError({ kind: 'transient', status: 500, method: chosen.method, path: chosen.path });
      }
    })({});
    await expect(fetchLive(client, [ACCOUNTS[0]], [SearchableChannel])).rejects.toThrow(/POST \/api\/v2\/AlertChannels\/search failed \(transient\): 500/);
  });

  it('follows nextPage to the last page and keeps every record in order', async () => {
    const page = (ids: string[], next?: string) => ({
      data: ids.map((id) => ({ intgGuid: id, name: `n-${id}`, type: 'Webhook', data: {} })),
      ...(next ? { paging: { rows: ids.length, totalRows: 5, urls: { nextPage: next } } } : {}),
    });
    const client = new FakeClient({
      prod: {
        '/api/v2/AlertChannels': page(['A', 'B'], 'https://svc.example.com/api/v2/AlertChannels/pages/2'),
        'https://svc.example.com/api/v2/AlertChannels/pages/2': page(['C', 'D'], 'https://svc.example.com/api/v2/AlertChannels/pages/3'),
        'https://svc.example.com/api/v2/AlertChannels/pages/3': page(['E']),
      },
    });
    const state = await fetchLive(client, [ACCOUNTS[0]], [Channel]);
    expect(state.resources.map((r) => r.id)).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(client.requests.map((r: ApiRequest) => [r.method, r.path, r.account])).toEqual([
      ['GET', '/api/v2/AlertChannels', 'prod'],
      ['GET', 'https://svc.example.com/api/v2/AlertChannels/pages/2', 'prod'],
      ['GET', 'https://svc.example.com/api/v2/AlertChannels/pages/3', 'prod'],
    ]);
  });

  it('reads per account only the kinds it is told, and records the others as unread', async () => {
    const client = new FakeClient({});
    const state = await fetchLive(client, ACCOUNTS, FAKE_KINDS, { kindsOf: (a) => (a.name === 'prod' ? [Channel, Rule] : [Channel]) });
    expect(client.requests.map((r) => `${r.account} ${r.path}`).sort()).toEqual([
      'prod /api/v2/AlertChannels',
      'prod /api/v2/AlertRules',
      'staging /api/v2/AlertChannels',
    ]);
    expect(state.unread).toEqual([
      { account: 'prod', kinds: ['Profile', 'Template'] },
      { account: 'staging', kinds: ['Rule', 'Profile', 'Template'] },
    ]);
  });
});

const declared = (account: string, kind: string, name = 'x'): DesiredResource => ({ kind, account, name, spec: {}, envRefs: {} });

describe('neededKinds', () => {
  const root = (prune: Record<string, boolean> = {}) => ({ file: 'postureops.yaml', accounts: ACCOUNTS, prune });
  const names = (kinds: readonly Kind[]) => kinds.map((k) => k.kind);

  it('reads what is declared in the account, what it refers to, and what shares a list with it', () => {
    const of = neededKinds({ root: root(), resources: [declared('prod', 'Rule'), declared('staging', 'Template')] }, FAKE_KINDS);
    // A rule refers to channels: their ids must become names.
    expect(names(of(ACCOUNTS[0]))).toEqual(['Channel', 'Rule']);
    // A template's parent is a profile, read with the same list.
    expect(names(of(ACCOUNTS[1]))).toEqual(['Profile', 'Template']);
  });

  it('reads a pruned kind in every account, declared there or not, with the kinds that refer to it', () => {
    const of = neededKinds({ root: root({ Channel: true }), resources: [] }, FAKE_KINDS);
    // A channel prune may delete is checked against the live rules routing to it.
    expect(names(of(ACCOUNTS[0]))).toEqual(['Channel', 'Rule']);
    expect(names(of(ACCOUNTS[1]))).toEqual(['Channel', 'Rule']);
    expect(unreadKinds(ACCOUNTS, FAKE_KINDS, of)).toEqual([
      { account: 'prod', kinds: ['Profile', 'Template'] },
      { account: 'staging', kinds: ['Profile', 'Template'] },
    ]);
  });

  it('a declared kind brings the kinds that refer to it (a replace is checked against them too)', () => {
    const of = neededKinds({ root: root(), resources: [declared('prod', 'Channel')] }, FAKE_KINDS);
    expect(names(of(ACCOUNTS[0]))).toEqual(['Channel', 'Rule']);
  });

  it('reads what refers to a declared kind only when that kind can be replaced', () => {
    // A channel kind without replaceOn loses a resource only to prune: no rule is read for it.
    const Fixed: Kind = {
      ...Channel,
      compare: {
        ...Channel.compare,
        replaceOn: [],
      },
    };
    const of = neededKinds({ root: root(), resources: [declared('prod', 'Channel')] }, [Fixed, Rule, Profile, Template]);
    expect(names(of(ACCOUNTS[0]))).toEqual(['Channel']);
  });

  it('does not go further than one step: a kind read for the in-use check brings nothing of its own', () => {
    // Rules refer to channels and to groups; groups are pruned, so the rules are read for the in-use
    // check, but the channels they name are not: those rules are never compared.
    const Group: Kind = {
      ...Profile,
      kind: 'Group',
      documentKind: 'Group',
      order: 15,
      collection: 'Groups',
      references: [],
      hierarchy: {
        ...Profile.hierarchy,
        parentKind: undefined,
      },
    };
    const Routed: Kind = { ...Rule, references: [...(Rule.references ?? []), { kind: 'Group', pointer: '/groups' }] };
    const of = neededKinds({ root: root({ Group: true }), resources: [] }, [Channel, Group, Routed]);
    expect(names(of(ACCOUNTS[0]))).toEqual(['Group', 'Rule']);
  });

  it('reads nothing in an account where nothing is declared or pruned', () => {
    const of = neededKinds({ root: root(), resources: [declared('prod', 'Profile')] }, FAKE_KINDS);
    expect(names(of(ACCOUNTS[1]))).toEqual([]);
  });

  it('a saved plan needs the kinds of its changes and of what they refer to', () => {
    const needs = planNeeds({
      changes: [{ key: 'prod/Rule/r', action: 'update', kind: 'Rule', account: 'prod', name: 'r', refs: [{ kind: 'Channel', name: 'ops', id: 'C1' }] } as never],
    });
    const of = neededKinds(needs, FAKE_KINDS);
    expect(names(of(ACCOUNTS[0]))).toEqual(['Channel', 'Rule']);
    expect(names(of(ACCOUNTS[1]))).toEqual([]);
  });
});
