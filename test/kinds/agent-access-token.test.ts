import { describe, expect, it } from 'vitest';
import { AgentAccessToken, standInId } from '../../src/kinds/agent-access-token/index.js';
import type { DesiredResource } from '../../src/model/resource.js';
import type { FetchContext, RequestContext } from '../../src/kinds/types.js';

const VALUE = 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718';
const ctx: RequestContext = { account: 'prod', orgAccess: false, resolve: () => 'unused' };
const desired = (spec: DesiredResource['spec']): DesiredResource => ({ kind: 'AgentAccessToken', account: 'prod', name: 'k8s', spec, envRefs: {} });

describe('AgentAccessToken', () => {
  it('lists tokens under a stand-in id that does not hold the value; the value is only the service id', async () => {
    const fetch: FetchContext = {
      account: 'prod',
      orgAccess: false,
      get: async () => ({ data: [{ accessToken: VALUE, tokenAlias: 'k8s', tokenEnabled: '1', props: { description: 'd', createdTime: 't' }, version: '1' }] }),
    };
    const [live] = await AgentAccessToken.list(fetch);
    expect(live).toEqual({ kind: 'AgentAccessToken', account: 'prod', name: 'k8s', id: standInId(VALUE), serviceId: VALUE, spec: { enabled: true, description: 'd' } });
    expect(live.id).toMatch(/^token-[0-9a-f]{16}$/);
    expect(JSON.stringify({ ...live, serviceId: undefined })).not.toContain(VALUE);
    expect(standInId(VALUE)).not.toBe(standInId(VALUE + '0'));
  });

  it('creates enabled with its description, and hands the issued value to the credential hook', () => {
    const req = AgentAccessToken.createRequest(desired({ enabled: true, description: 'for k8s' }), [], ctx);
    expect(req).toMatchObject({ method: 'POST', path: '/api/v2/AgentAccessTokens', account: 'prod', body: { tokenAlias: 'k8s', tokenEnabled: '1', props: { description: 'for k8s' } } });
    const body = { data: { accessToken: VALUE, tokenAlias: 'k8s', tokenEnabled: '1' } };
    expect(AgentAccessToken.credentials?.issuedCredential?.(body)).toBe(VALUE);
    expect(AgentAccessToken.createdId(body, desired({}))).toBe(standInId(VALUE));
  });

  it('updates with PATCH of what changed; delete disables; a declared disabled token is not expected in the list', () => {
    expect(AgentAccessToken.updateRequests(VALUE, desired({ enabled: false, description: 'x' }), ['enabled'], ctx)).toEqual([
      expect.objectContaining({ method: 'PATCH', path: `/api/v2/AgentAccessTokens/${VALUE}`, body: { tokenEnabled: '0' } }),
    ]);
    expect(AgentAccessToken.updateRequests(VALUE, desired({ enabled: true, description: 'x' }), ['description'], ctx)[0].body).toEqual({ props: { description: 'x' } });
    expect(AgentAccessToken.deleteRequest(VALUE, ctx)).toMatchObject({ method: 'PATCH', body: { tokenEnabled: '0' } });
    expect(AgentAccessToken.lifecycle?.deleteMeans).toMatch(/disabled/);
    expect(AgentAccessToken.credentials?.secretIds).toBe(true);
    expect(AgentAccessToken.lifecycle?.unlisted?.(desired({ enabled: false, description: '' }))).toBe(true);
    expect(AgentAccessToken.lifecycle?.unlisted?.(desired({ enabled: true, description: '' }))).toBe(false);
  });

  it('exports as people write it: enabled and description only when they differ from the defaults', () => {
    const live = { kind: 'AgentAccessToken', account: 'prod', name: 'k8s', id: standInId(VALUE), serviceId: VALUE, spec: { enabled: true, description: '' } };
    expect((AgentAccessToken.export?.toDocument(live, []) ?? null)).toEqual({ kind: 'AgentAccessToken', name: 'k8s', spec: {} });
  });
});
