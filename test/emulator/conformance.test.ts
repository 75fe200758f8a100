// Conformance with the seeds, as tables: every method and path of seed 001 (and the endpoints
// api-facts.md adds), the status table, the auth and organization matrix, rate-limit buckets and
// headers, search rules and paging. Deliberate deviations are listed in src/emulator/README.md.
// One emulator serves the file (manual clock, never moved); buckets and faults get small ones of their own.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock, parseKeySpec, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { boot, parse, slack, type Harness, type Reply } from './helpers.js';

const NOW = Date.UTC(2025, 5, 2, 9, 30, 0);
const KEYS: EmulatorOptions['keys'] = [
  { keyId: 'SECOND', secret: 'second-secret', role: 'org-admin', user: 'second@example.com' },
  { keyId: 'SUB', secret: 'sub-secret', role: 'sub-account-admin', accounts: ['staging'], user: 'ops@example.com' },
  { keyId: 'USER', secret: 'user-secret', role: 'account-user' },
];

let h: Harness;
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};

async function tokenFor(keyId: string, secret: string): Promise<string> {
  const r = await h.exchange({ keyId, expiryTime: 86_400 }, secret);
  if (r.status !== 201) throw new Error(`no token for ${keyId}: ${r.status}`);
  return r.body.token;
}

const ecr = (name: string) => ({
  name,
  type: 'ContVulnCfg',
  enabled: 1,
  data: { registryType: 'DOCKERHUB', credentials: { username: 'u', password: 'p' }, limitNumImg: 5 },
});
const awsCfg = (name: string) => ({
  name,
  type: 'AwsCfg',
  enabled: 1,
  data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/x', externalId: 'ext' } },
});
const group = (name: string) => ({
  name,
  resourceType: 'AWS',
  query: { filters: { f: { field: 'Region', operation: 'EQUALS', values: ['eu-west-1'] } }, expression: { operator: 'AND', children: [{ filterName: 'f' }] } },
});
const report = (name: string) => ({ type: 'Report', intgGuidList: [ids.email], filters: { name }, reportNotificationTypes: { pci: true } });
const template = (name: string) => ({ name, eventName: 'E', description: 'd', subject: 's' });
const query = (queryId: string) => ({ queryId, queryText: '{ source { CloudTrailRawEvents e } return { e.EVENT_NAME } }' });
const policy = (suffix?: string) => ({
  ...(suffix !== undefined ? { policyId: suffix } : {}),
  policyType: 'Violation',
  queryId: 'conf_query',
  title: 't',
  description: 'd',
  remediation: 'r',
  severity: 'high',
});
const exception = (description: string) => ({ description, constraints: [{ fieldKey: 'accountIds', fieldValues: ['123456789012'] }] });
const vuln = (exceptionName: string) => ({ exceptionName, exceptionType: 'Host', exceptionReason: 'Other', vulnerabilityCriteria: { cve: ['CVE-2021-1'] } });
const s3 = (name: string) => ({
  name,
  type: 'AwsS3',
  enabled: 1,
  data: { s3CrossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/x', externalId: 'e', bucketArn: 'arn:aws:s3:::b' } },
});
const dataExport = (name: string) => ({ type: 'Dataexport', intgGuidList: [ids.s3], filters: { name } });

beforeAll(async () => {
  h = await boot({ clock: manualClock(NOW), accounts: ['prod', 'staging', 'dev'], keys: KEYS, rateLimit: 100_000, activityRows: 6000 });
  tokens.admin = h.token;
  tokens.second = await tokenFor('SECOND', 'second-secret');
  tokens.sub = await tokenFor('SUB', 'sub-secret');
  const made = async (path: string, body: unknown, pick: (b: any) => string) => {
    const r = await h.call('POST', path, { body });
    if (r.status !== 201) throw new Error(`setup ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return pick(r.body);
  };
  ids.channel = await made('AlertChannels', slack('conf-slack'), (b) => b.data.intgGuid);
  ids.rule = await made('AlertRules', { type: 'Event', intgGuidList: [ids.channel], filters: { name: 'conf-rule', severity: [1] } }, (b) => b.data.mcGuid);
  ids.token = await made('AgentAccessTokens', { tokenAlias: 'conf-agent', tokenEnabled: '1' }, (b) => b.data.accessToken);
  ids.cloud = await made('CloudAccounts', awsCfg('conf-aws'), (b) => b.data.intgGuid);
  ids.registry = await made('ContainerRegistries', ecr('conf-registry'), (b) => b.data.intgGuid);
  ids.email = await made('AlertChannels', { name: 'conf-mail', type: 'EmailUser', enabled: 1, data: { channelProps: { recipients: ['a@example.com'] } } }, (b) => b.data.intgGuid);
  ids.group = await made('ResourceGroups', group('conf-group'), (b) => b.data.resourceGroupGuid);
  ids.report = await made('ReportRules', report('conf-report'), (b) => b.data.mcGuid);
  await made('AlertProfiles', { alertProfileId: 'CONF_PROFILE', extends: 'SVC_HE_FILES_DEFAULT_PROFILE', alerts: [template('T1')] }, () => '');
  await made('Queries', query('conf_query'), () => '');
  ids.policy = await made('Policies', policy('confpolicy'), (b) => b.data.policyId);
  ids.exception = await made(`Exceptions?policyId=${ids.policy}`, exception('conf'), (b) => b.data.exceptionId);
  ids.vuln = await made('VulnerabilityExceptions', vuln('conf-vuln'), (b) => b.data.exceptionGuid);
  ids.s3 = await made('AlertChannels', s3('conf-s3'), (b) => b.data.intgGuid);
  ids.export = await made('DataExportRules', dataExport('conf-export'), (b) => b.data.mcGuid);
});
afterAll(() => h.close());

// ---------------------------------------------------------------------------------------------
// Every endpoint: method, route (as GET /api/v2/docs spells it), the request, the success status
// and the body shape the seed gives.

type Shape = 'token' | 'one' | 'list' | 'bare-list' | 'paged' | 'none';

interface Endpoint {
  method: string;
  route: string;
  /** The concrete path; a function may create what it needs (so rows do not depend on each other). */
  path: string | (() => Promise<string>);
  /** A function when it needs identifiers made in beforeAll. */
  body?: unknown;
  status: number;
  shape: Shape;
}

const fresh = async (path: string, body: unknown, pick: (b: any) => string) => pick((await h.call('POST', path, { body })).body);
const freshProfile = async (id: string, templates = [template('T1')]) => {
  await h.call('POST', 'AlertProfiles', { body: { alertProfileId: id, extends: 'SVC_HE_FILES_DEFAULT_PROFILE', alerts: templates } });
  return id;
};
const search = { filters: [], returns: [] as string[] };

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', route: 'docs', path: 'docs', status: 200, shape: 'none' },
  { method: 'POST', route: 'access/tokens', path: 'access/tokens', status: 201, shape: 'token' },
  { method: 'GET', route: 'schemas', path: 'schemas', status: 200, shape: 'bare-list' },
  { method: 'GET', route: 'schemas/{type}', path: 'schemas/AlertChannels', status: 200, shape: 'bare-list' },
  { method: 'GET', route: 'schemas/{type}/{subtype}', path: 'schemas/AlertChannels/SlackChannel', status: 200, shape: 'bare-list' },

  { method: 'POST', route: 'Activities/ChangedFiles/search', path: 'Activities/ChangedFiles/search', body: { returns: ['mid'] }, status: 200, shape: 'paged' },
  { method: 'POST', route: 'Activities/DNSs/search', path: 'Activities/DNSs/search', body: { returns: ['fqdn'] }, status: 200, shape: 'paged' },
  { method: 'POST', route: 'Activities/UserLogins/search', path: 'Activities/UserLogins/search', body: { returns: ['uid'] }, status: 200, shape: 'paged' },
  {
    method: 'POST',
    route: 'Configs/ComplianceEvaluations/search',
    path: 'Configs/ComplianceEvaluations/search',
    body: { dataset: 'GcpCompliance', returns: ['id'] },
    status: 200,
    shape: 'paged',
  },
  { method: 'POST', route: 'CloudActivities/search', path: 'CloudActivities/search', body: { returns: ['eventId'] }, status: 200, shape: 'paged' },
  { method: 'GET', route: 'CloudActivities', path: 'CloudActivities', status: 200, shape: 'paged' },
  { method: 'POST', route: 'AuditLogs/search', path: 'AuditLogs/search', body: {}, status: 200, shape: 'list' },
  { method: 'GET', route: 'AuditLogs', path: 'AuditLogs', status: 200, shape: 'list' },
  ...['Activities/ChangedFiles', 'Activities/DNSs', 'Activities/UserLogins', 'Configs/ComplianceEvaluations', 'CloudActivities'].map(
    (base): Endpoint => ({
      method: 'GET',
      route: `${base}/pages/{pageId}`,
      path: async () => {
        const body = base.startsWith('Configs') ? { dataset: 'AwsCompliance', returns: ['id'] } : { returns: ['startTime'] };
        const first = await h.call('POST', `${base}/search`, { body });
        return (first.body.paging.urls.nextPage as string).slice(`${h.emu.url}/api/v2/`.length);
      },
      status: 200,
      shape: 'paged',
    }),
  ),

  { method: 'POST', route: 'AgentAccessTokens', path: 'AgentAccessTokens', body: { tokenAlias: 'a2', tokenEnabled: '1' }, status: 201, shape: 'one' },
  { method: 'GET', route: 'AgentAccessTokens', path: 'AgentAccessTokens', status: 200, shape: 'list' },
  { method: 'POST', route: 'AgentAccessTokens/search', path: 'AgentAccessTokens/search', body: search, status: 200, shape: 'list' },
  { method: 'GET', route: 'AgentAccessTokens/{id}', path: () => Promise.resolve(`AgentAccessTokens/${ids.token}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'AgentAccessTokens/{id}', path: () => Promise.resolve(`AgentAccessTokens/${ids.token}`), body: { tokenEnabled: '1' }, status: 200, shape: 'one' },

  { method: 'POST', route: 'AlertChannels', path: 'AlertChannels', body: slack('c2'), status: 201, shape: 'one' },
  { method: 'GET', route: 'AlertChannels', path: 'AlertChannels', status: 200, shape: 'list' },
  { method: 'GET', route: 'AlertChannels/{intgGuid}', path: 'AlertChannels/SlackChannel', status: 200, shape: 'list' },
  { method: 'POST', route: 'AlertChannels/search', path: 'AlertChannels/search', body: search, status: 200, shape: 'list' },
  { method: 'POST', route: 'AlertChannels/{intgGuid}/test', path: () => Promise.resolve(`AlertChannels/${ids.channel}/test`), status: 204, shape: 'none' },
  { method: 'GET', route: 'AlertChannels/{intgGuid}', path: () => Promise.resolve(`AlertChannels/${ids.channel}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'AlertChannels/{intgGuid}', path: () => Promise.resolve(`AlertChannels/${ids.channel}`), body: { enabled: 1 }, status: 200, shape: 'one' },
  { method: 'PUT', route: 'AlertChannels/{intgGuid}', path: () => Promise.resolve(`AlertChannels/${ids.channel}`), body: slack('conf-slack'), status: 200, shape: 'one' },
  { method: 'DELETE', route: 'AlertChannels/{intgGuid}', path: async () => `AlertChannels/${await fresh('AlertChannels', slack('gone'), (b) => b.data.intgGuid)}`, status: 204, shape: 'none' },

  { method: 'POST', route: 'AlertRules', path: 'AlertRules', body: () => ({ type: 'Event', intgGuidList: [ids.channel], filters: { name: 'r2' } }), status: 201, shape: 'one' },
  { method: 'GET', route: 'AlertRules', path: 'AlertRules', status: 200, shape: 'list' },
  { method: 'POST', route: 'AlertRules/search', path: 'AlertRules/search', body: search, status: 200, shape: 'list' },
  { method: 'GET', route: 'AlertRules/{mcGuid}', path: () => Promise.resolve(`AlertRules/${ids.rule}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'AlertRules/{mcGuid}', path: () => Promise.resolve(`AlertRules/${ids.rule}`), body: { filters: { severity: [1, 2] } }, status: 200, shape: 'one' },
  {
    method: 'DELETE',
    route: 'AlertRules/{mcGuid}',
    path: async () => `AlertRules/${await fresh('AlertRules', { type: 'Event', intgGuidList: [ids.channel], filters: { name: 'gone' } }, (b) => b.data.mcGuid)}`,
    status: 204,
    shape: 'none',
  },

  { method: 'POST', route: 'ResourceGroups', path: 'ResourceGroups', body: group('g2'), status: 201, shape: 'one' },
  { method: 'GET', route: 'ResourceGroups', path: 'ResourceGroups', status: 200, shape: 'list' },
  { method: 'POST', route: 'ResourceGroups/search', path: 'ResourceGroups/search', body: search, status: 200, shape: 'list' },
  { method: 'GET', route: 'ResourceGroups/{resourceGroupGuid}', path: () => Promise.resolve(`ResourceGroups/${ids.group}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'ResourceGroups/{resourceGroupGuid}', path: () => Promise.resolve(`ResourceGroups/${ids.group}`), body: { description: 'd' }, status: 200, shape: 'one' },
  {
    method: 'DELETE',
    route: 'ResourceGroups/{resourceGroupGuid}',
    path: async () => `ResourceGroups/${await fresh('ResourceGroups', group('gone'), (b) => b.data.resourceGroupGuid)}`,
    status: 204,
    shape: 'none',
  },
  { method: 'POST', route: 'ReportRules', path: 'ReportRules', body: () => report('r2'), status: 201, shape: 'one' },
  { method: 'GET', route: 'ReportRules', path: 'ReportRules', status: 200, shape: 'list' },
  { method: 'GET', route: 'ReportRules/{mcGuid}', path: () => Promise.resolve(`ReportRules/${ids.report}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'ReportRules/{mcGuid}', path: () => Promise.resolve(`ReportRules/${ids.report}`), body: { reportNotificationTypes: { soc: true } }, status: 200, shape: 'one' },
  { method: 'DELETE', route: 'ReportRules/{mcGuid}', path: async () => `ReportRules/${await fresh('ReportRules', report('gone'), (b) => b.data.mcGuid)}`, status: 204, shape: 'none' },

  { method: 'POST', route: 'AlertProfiles', path: 'AlertProfiles', body: { alertProfileId: 'CONF_P2', extends: 'SVC_HE_FILES_DEFAULT_PROFILE', alerts: [template('T')] }, status: 201, shape: 'list' },
  { method: 'GET', route: 'AlertProfiles', path: 'AlertProfiles', status: 200, shape: 'list' },
  { method: 'GET', route: 'AlertProfiles/{alertProfileId}', path: 'AlertProfiles/CONF_PROFILE', status: 200, shape: 'one' },
  { method: 'PATCH', route: 'AlertProfiles/{alertProfileId}', path: 'AlertProfiles/CONF_PROFILE', body: { alerts: [template('T1')] }, status: 200, shape: 'list' },
  { method: 'DELETE', route: 'AlertProfiles/{alertProfileId}', path: async () => `AlertProfiles/${await freshProfile('CONF_GONE')}`, status: 204, shape: 'none' },
  {
    method: 'POST',
    route: 'AlertProfiles/{alertProfileId}/AlertTemplates',
    path: async () => `AlertProfiles/${await freshProfile('CONF_ADD')}/AlertTemplates`,
    body: template('T2'),
    status: 200,
    shape: 'list',
  },
  {
    method: 'PATCH',
    route: 'AlertProfiles/{alertProfileId}/AlertTemplates/{alertTemplateName}',
    path: 'AlertProfiles/CONF_PROFILE/AlertTemplates/T1',
    body: { subject: 'changed' },
    status: 200,
    shape: 'list',
  },
  {
    method: 'DELETE',
    route: 'AlertProfiles/{alertProfileId}/AlertTemplates/{alertTemplateName}',
    path: async () => `AlertProfiles/${await freshProfile('CONF_DEL', [template('T1'), template('T2')])}/AlertTemplates/T2`,
    status: 204,
    shape: 'none',
  },

  // api-facts.md "Queries, policies, exceptions, team members, data export".
  { method: 'POST', route: 'Queries', path: 'Queries', body: query('conf_q2'), status: 201, shape: 'one' },
  { method: 'GET', route: 'Queries', path: 'Queries', status: 200, shape: 'list' },
  { method: 'POST', route: 'Queries/validate', path: 'Queries/validate', body: { queryText: query('x').queryText }, status: 200, shape: 'one' },
  { method: 'GET', route: 'Queries/{queryId}', path: 'Queries/conf_query', status: 200, shape: 'one' },
  { method: 'PATCH', route: 'Queries/{queryId}', path: 'Queries/conf_query', body: { description: 'd' }, status: 200, shape: 'one' },
  { method: 'DELETE', route: 'Queries/{queryId}', path: async () => `Queries/${await fresh('Queries', query('conf_gone'), (b) => b.data.queryId)}`, status: 204, shape: 'none' },
  { method: 'POST', route: 'Policies', path: 'Policies', body: policy(), status: 201, shape: 'one' },
  { method: 'GET', route: 'Policies', path: 'Policies', status: 200, shape: 'list' },
  { method: 'PATCH', route: 'Policies', path: 'Policies', body: () => [{ policyId: ids.policy, enabled: true }], status: 200, shape: 'list' },
  { method: 'GET', route: 'Policies/Tags', path: 'Policies/Tags', status: 200, shape: 'list' },
  { method: 'GET', route: 'Policies/{policyId}', path: () => Promise.resolve(`Policies/${ids.policy}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'Policies/{policyId}', path: () => Promise.resolve(`Policies/${ids.policy}`), body: { severity: 'low' }, status: 200, shape: 'one' },
  { method: 'DELETE', route: 'Policies/{policyId}', path: async () => `Policies/${await fresh('Policies', policy(), (b) => b.data.policyId)}`, status: 204, shape: 'none' },
  { method: 'POST', route: 'Exceptions', path: () => Promise.resolve(`Exceptions?policyId=${ids.policy}`), body: exception('e2'), status: 201, shape: 'one' },
  { method: 'GET', route: 'Exceptions', path: () => Promise.resolve(`Exceptions?policyId=${ids.policy}`), status: 200, shape: 'list' },
  { method: 'GET', route: 'Exceptions/{exceptionId}', path: () => Promise.resolve(`Exceptions/${ids.exception}?policyId=${ids.policy}`), status: 200, shape: 'one' },
  {
    method: 'PATCH',
    route: 'Exceptions/{exceptionId}',
    path: () => Promise.resolve(`Exceptions/${ids.exception}?policyId=${ids.policy}`),
    body: { description: 'changed' },
    status: 200,
    shape: 'one',
  },
  {
    method: 'DELETE',
    route: 'Exceptions/{exceptionId}',
    path: async () => `Exceptions/${await fresh(`Exceptions?policyId=${ids.policy}`, exception('gone'), (b) => b.data.exceptionId)}?policyId=${ids.policy}`,
    status: 204,
    shape: 'none',
  },
  { method: 'POST', route: 'VulnerabilityExceptions', path: 'VulnerabilityExceptions', body: vuln('v2'), status: 201, shape: 'one' },
  { method: 'GET', route: 'VulnerabilityExceptions', path: 'VulnerabilityExceptions', status: 200, shape: 'list' },
  { method: 'POST', route: 'VulnerabilityExceptions/search', path: 'VulnerabilityExceptions/search', body: search, status: 200, shape: 'list' },
  { method: 'GET', route: 'VulnerabilityExceptions/{exceptionGuid}', path: () => Promise.resolve(`VulnerabilityExceptions/${ids.vuln}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'VulnerabilityExceptions/{exceptionGuid}', path: () => Promise.resolve(`VulnerabilityExceptions/${ids.vuln}`), body: { state: 0 }, status: 200, shape: 'one' },
  {
    method: 'DELETE',
    route: 'VulnerabilityExceptions/{exceptionGuid}',
    path: async () => `VulnerabilityExceptions/${await fresh('VulnerabilityExceptions', vuln('gone'), (b) => b.data.exceptionGuid)}`,
    status: 204,
    shape: 'none',
  },
  { method: 'POST', route: 'DataExportRules', path: 'DataExportRules', body: () => dataExport('x2'), status: 201, shape: 'one' },
  { method: 'GET', route: 'DataExportRules', path: 'DataExportRules', status: 200, shape: 'list' },
  { method: 'POST', route: 'DataExportRules/search', path: 'DataExportRules/search', body: search, status: 200, shape: 'list' },
  { method: 'GET', route: 'DataExportRules/{mcGuid}', path: () => Promise.resolve(`DataExportRules/${ids.export}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'DataExportRules/{mcGuid}', path: () => Promise.resolve(`DataExportRules/${ids.export}`), body: { filters: { enabled: 0 } }, status: 200, shape: 'one' },
  { method: 'DELETE', route: 'DataExportRules/{mcGuid}', path: async () => `DataExportRules/${await fresh('DataExportRules', dataExport('gone'), (b) => b.data.mcGuid)}`, status: 204, shape: 'none' },

  { method: 'POST', route: 'CloudAccounts', path: 'CloudAccounts', body: awsCfg('a2'), status: 201, shape: 'one' },
  { method: 'GET', route: 'CloudAccounts', path: 'CloudAccounts', status: 200, shape: 'list' },
  { method: 'GET', route: 'CloudAccounts/{intgGuid}', path: 'CloudAccounts/AwsCfg', status: 200, shape: 'list' },
  { method: 'POST', route: 'CloudAccounts/search', path: 'CloudAccounts/search', body: search, status: 200, shape: 'list' },
  { method: 'GET', route: 'CloudAccounts/{intgGuid}', path: () => Promise.resolve(`CloudAccounts/${ids.cloud}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'CloudAccounts/{intgGuid}', path: () => Promise.resolve(`CloudAccounts/${ids.cloud}`), body: { enabled: 0 }, status: 200, shape: 'one' },
  { method: 'PUT', route: 'CloudAccounts/{intgGuid}', path: () => Promise.resolve(`CloudAccounts/${ids.cloud}`), body: awsCfg('conf-aws'), status: 200, shape: 'one' },
  { method: 'DELETE', route: 'CloudAccounts/{intgGuid}', path: async () => `CloudAccounts/${await fresh('CloudAccounts', awsCfg('gone'), (b) => b.data.intgGuid)}`, status: 204, shape: 'none' },

  { method: 'POST', route: 'ContainerRegistries', path: 'ContainerRegistries', body: ecr('r2'), status: 201, shape: 'one' },
  // The rest of the registry endpoints come from api-facts.md (the seed shows only POST).
  { method: 'GET', route: 'ContainerRegistries', path: 'ContainerRegistries', status: 200, shape: 'list' },
  { method: 'POST', route: 'ContainerRegistries/search', path: 'ContainerRegistries/search', body: search, status: 200, shape: 'list' },
  { method: 'GET', route: 'ContainerRegistries/{intgGuid}', path: () => Promise.resolve(`ContainerRegistries/${ids.registry}`), status: 200, shape: 'one' },
  { method: 'PATCH', route: 'ContainerRegistries/{intgGuid}', path: () => Promise.resolve(`ContainerRegistries/${ids.registry}`), body: { enabled: 1 }, status: 200, shape: 'one' },
  {
    method: 'DELETE',
    route: 'ContainerRegistries/{intgGuid}',
    path: async () => `ContainerRegistries/${await fresh('ContainerRegistries', ecr('gone'), (b) => b.data.intgGuid)}`,
    status: 204,
    shape: 'none',
  },
];

function checkShape(shape: Shape, r: Reply): void {
  switch (shape) {
    case 'token':
      expect(Object.keys(r.body).sort()).toEqual(['expiresAt', 'token']);
      return;
    case 'one':
      expect(r.body.data).toEqual(expect.any(Object));
      expect(Array.isArray(r.body.data)).toBe(false);
      return;
    case 'list':
      expect(Array.isArray(r.body.data)).toBe(true);
      return;
    case 'bare-list':
      expect(Array.isArray(r.body)).toBe(true);
      return;
    case 'paged':
      expect(Object.keys(r.body)).toEqual(['paging', 'data']);
      expect(r.body.paging).toEqual({ rows: r.body.data.length, totalRows: expect.any(Number), urls: { nextPage: r.body.paging.urls.nextPage } });
      // A full URL while rows remain, null on the last page.
      if (r.body.paging.urls.nextPage !== null) expect(r.body.paging.urls.nextPage).toMatch(/^http:\/\/.+\/api\/v2\/.+\/pages\//);
      expect(r.body.paging.rows).toBeLessThanOrEqual(5000);
      return;
    case 'none':
      return;
  }
}

describe('every endpoint of the seeds', () => {
  it.each(ENDPOINTS.map((e) => [`${e.method} ${typeof e.path === 'string' ? e.path : e.route}`, e] as const))('%s', async (_, e) => {
    const path = typeof e.path === 'string' ? e.path : await e.path();
    const r =
      e.route === 'access/tokens'
        ? await h.exchange({ keyId: h.emu.keyId })
        : await h.call(e.method, path, e.body === undefined ? {} : { body: typeof e.body === 'function' ? e.body() : e.body });
    expect(r.status, JSON.stringify(r.body)?.slice(0, 300)).toBe(e.status);
    if (e.status === 204) expect(r.body).toBeUndefined();
    checkShape(e.shape, r);
    for (const name of ['Limit', 'Remaining', 'Reset']) expect(r.headers.get(`RateLimit-${name}`), name).toMatch(/^\d+$/);
  });

  it('GET /api/v2/docs answers 200 without a token: an OpenAPI 3 document with exactly the routes above', async () => {
    const r = await parse(await fetch(`${h.emu.url}/api/v2/docs`));
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    expect(r.body.servers).toEqual([{ url: h.emu.url }]);
    const documented = Object.entries(r.body.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const walked = [...new Set(ENDPOINTS.map((e) => `${e.method} /api/v2/${e.route}`))].sort();
    expect(documented).toEqual(walked);
    // Request schemas come from the validators: the channel create body lists the Slack subtype.
    const create = r.body.paths['/api/v2/AlertChannels'].post;
    expect(JSON.stringify(create.requestBody)).toContain('slackUrl');
    expect(create.responses['201']).toBeDefined();
    expect(r.body.paths['/api/v2/docs'].get.security).toEqual([]);
    // The flat exceptions path names its policy as a query parameter on every verb.
    for (const [path, ops] of Object.entries(r.body.paths as Record<string, Record<string, any>>).filter(([p]) => p.startsWith('/api/v2/Exceptions'))) {
      for (const [method, op] of Object.entries(ops)) expect(op.parameters.map((x: any) => `${x.in}:${x.name}`), `${method} ${path}`).toContain('query:policyId');
    }
    expect(r.body.paths['/api/v2/Configs/ComplianceEvaluations/search'].post.requestBody.content['application/json'].schema.required).toEqual(['dataset']);
    // Every record type it serves has a schema, the activity records too.
    for (const t of ['ChangedFiles', 'DNSs', 'UserLogins', 'ComplianceEvaluations', 'CloudActivities', 'AuditLogs', 'AlertChannels', 'Queries', 'Policies', 'Exceptions', 'VulnerabilityExceptions', 'DataExportRules']) {
      expect(r.body.components.schemas[t], t).toBeDefined();
    }
  });

  it('describes every type it serves under /schemas/{type}, the activity records too', async () => {
    const names = (await h.call('GET', 'schemas')).body as string[];
    expect(names).toEqual(expect.arrayContaining(['ChangedFiles', 'DNSs', 'UserLogins', 'ComplianceEvaluations', 'CloudActivities', 'AuditLogs', 'ContainerRegistries']));
    const seedFields: Record<string, string> = {
      ChangedFiles: 'startTime endTime mid filePath filedataHash mtime size threatInfo',
      DNSs: 'createdTime mid fqdn hostIpAddr ttl dnsServerIp',
      UserLogins: 'createdTime activityTime mid activityType username uid sourceIpAddr',
      ComplianceEvaluations: 'account evalType id reason recommendation region reportTime resource section severity status',
      CloudActivities: 'startTime endTime eventType eventId eventModel eventActor eventMap',
    };
    for (const name of names) {
      const r = await h.call('GET', `schemas/${name}`);
      expect(r.status, name).toBe(200);
      expect(r.body.length, name).toBeGreaterThan(0);
      for (const f of r.body) expect(f, name).toEqual({ name: expect.any(String), type: expect.any(String) });
      if (seedFields[name]) expect(r.body.map((f: any) => f.name), name).toEqual(seedFields[name].split(' '));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The status table of seed 000: every status the emulator answers, with a {message} on errors.

interface StatusCase {
  status: number;
  what: string;
  call: () => Promise<Reply>;
}

const STATUSES: StatusCase[] = [
  { status: 400, what: 'invalid data', call: () => h.call('POST', 'AlertChannels', { body: { name: ' ', type: 'SlackChannel', enabled: 1, data: {} } }) },
  { status: 400, what: 'malformed JSON', call: () => h.call('POST', 'AlertChannels', { raw: '{"name":' }) },
  {
    status: 400,
    what: 'a body over 1 MB (no 413 in the table)',
    call: () => h.call('POST', 'AlertChannels', { body: { ...slack('big'), data: { slackUrl: 'https://x', pad: 'x'.repeat(1024 * 1024) } } }),
  },
  { status: 400, what: 'search expression expr', call: () => h.call('POST', 'Activities/DNSs/search', { body: { filters: [{ field: 'fqdn', expression: 'expr', value: 'x' }] } }) },
  { status: 401, what: 'no bearer token', call: () => h.call('GET', 'AlertChannels', { token: null }) },
  { status: 401, what: 'a wrong secret', call: () => h.exchange({ keyId: 'SUB' }, 'wrong') },
  { status: 403, what: 'an account user asks for a token', call: () => h.exchange({ keyId: 'USER' }, 'user-secret') },
  { status: 403, what: 'an unknown Account-Name', call: () => h.call('GET', 'AlertRules', { account: 'nowhere' }) },
  { status: 404, what: 'an unknown path', call: () => h.call('GET', 'NoSuchCollection') },
  { status: 404, what: 'an unknown identifier', call: () => h.call('GET', 'AlertRules/00000000-0000-0000-0000-000000000000') },
  { status: 405, what: 'DELETE of an agent access token', call: () => h.call('DELETE', `AgentAccessTokens/${ids.token}`) },
  { status: 405, what: 'PUT of a container registry', call: () => h.call('PUT', `ContainerRegistries/${ids.registry}`, { body: ecr('x') }) },
  { status: 405, what: 'PUT of an alert rule', call: () => h.call('PUT', `AlertRules/${ids.rule}`, { body: {} }) },
  { status: 409, what: 'deleting a channel a rule uses', call: () => h.call('DELETE', `AlertChannels/${ids.channel}`) },
];

describe('status table', () => {
  it.each(STATUSES.map((s) => [`${s.status}: ${s.what}`, s] as const))('%s', async (_, s) => {
    const r = await s.call();
    expect(r.status).toBe(s.status);
    expect(r.body).toEqual({ message: expect.any(String) });
    expect(r.body.message.length).toBeGreaterThan(0);
    expect(r.headers.get('RateLimit-Limit')).toMatch(/^\d+$/);
  });

  it('429, 500 and 503 with {message} (small emulators: one bucket of 1, one that always faults)', async () => {
    const small = await startEmulator({ rateLimit: 1, clock: manualClock(NOW) });
    const faulty = await startEmulator({ faults: 1, faultSeed: 3 });
    try {
      const token = (await parse(await fetch(`${small.url}/api/v2/access/tokens`, tokenRequest(small)))).body.token;
      const auth = { headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } };
      expect((await fetch(`${small.url}/api/v2/AlertRules`, auth)).status).toBe(200);
      const limited = await parse(await fetch(`${small.url}/api/v2/AlertRules`, auth));
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ message: expect.any(String) });
      const seen = new Set<number>();
      for (let i = 0; i < 40 && !(seen.has(500) && seen.has(503)); i++) {
        try {
          const r = await parse(await fetch(`${faulty.url}/api/v2/schemas`));
          seen.add(r.status);
          expect(r.body).toEqual({ message: expect.any(String) });
        } catch {
          // a dropped connection, one of the faults
        }
      }
      expect([...seen]).toEqual(expect.arrayContaining([500, 503]));
    } finally {
      await small.close();
      await faulty.close();
    }
  });
});

function tokenRequest(emu: RunningEmulator, keyId = emu.keyId, secret = emu.secret): RequestInit {
  return { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-SVC-UAKS': secret }, body: JSON.stringify({ keyId }) };
}

// ---------------------------------------------------------------------------------------------
// Keys, roles and the organization headers (seed 000, "Organization access").

type Who = 'admin' | 'sub';
interface AccessCase {
  who: Who;
  path: string;
  account?: string;
  org?: boolean;
  status: number;
  /** The account whose data came back (seen in intgGuid prefixes), when 200. */
  sees?: 'prod' | 'staging' | 'org';
}

const ACCESS: AccessCase[] = [
  { who: 'admin', path: 'AlertChannels', status: 200, sees: 'prod' },
  { who: 'admin', path: 'AlertChannels', account: 'staging', status: 200, sees: 'staging' },
  { who: 'admin', path: 'AlertChannels', account: 'PROD', status: 200, sees: 'prod' },
  { who: 'admin', path: 'AlertChannels', org: true, status: 200, sees: 'org' },
  { who: 'admin', path: 'AlertChannels', org: true, account: 'staging', status: 200, sees: 'org' },
  { who: 'admin', path: 'AlertChannels', account: 'nowhere', status: 403 },
  { who: 'admin', path: 'AuditLogs', org: true, status: 200 },
  { who: 'admin', path: 'AgentAccessTokens', org: true, status: 200 },
  { who: 'sub', path: 'AlertChannels', status: 200, sees: 'staging' },
  { who: 'sub', path: 'AlertChannels', account: 'staging', status: 200, sees: 'staging' },
  { who: 'sub', path: 'AlertChannels', account: 'prod', status: 403 },
  { who: 'sub', path: 'AlertChannels', account: 'dev', status: 403 },
  { who: 'sub', path: 'AlertChannels', org: true, status: 403 },
  { who: 'sub', path: 'AlertChannels', org: true, account: 'staging', status: 403 },
  { who: 'sub', path: 'AlertRules', org: true, status: 403 },
  { who: 'sub', path: 'CloudAccounts', account: 'prod', status: 403 },
  { who: 'sub', path: 'ContainerRegistries', org: true, status: 403 },
  { who: 'sub', path: 'AuditLogs', org: true, status: 403 },
  { who: 'sub', path: 'AuditLogs', account: 'prod', status: 403 },
  { who: 'sub', path: 'AgentAccessTokens', account: 'prod', status: 403 },
  { who: 'sub', path: 'AlertProfiles', account: 'prod', status: 403 },
  // Not an OG endpoint: Org-Access is ignored, the sub-account applies.
  { who: 'sub', path: 'AgentAccessTokens', org: true, status: 200 },
  { who: 'sub', path: 'CloudActivities', account: 'prod', status: 403 },
  { who: 'sub', path: 'CloudActivities', account: 'staging', status: 200 },
];

describe('auth and organization matrix', () => {
  beforeAll(async () => {
    await h.call('POST', 'AlertChannels', { body: slack('in-staging'), account: 'staging' });
    await h.call('POST', 'AlertChannels', { body: slack('org-wide'), org: true });
  });

  it.each(ACCESS.map((c) => [`${c.who} ${c.path}${c.account ? ` Account-Name: ${c.account}` : ''}${c.org ? ' Org-Access: true' : ''} → ${c.status}`, c] as const))(
    '%s',
    async (_, c) => {
      const r = await h.call('GET', c.path, { token: tokens[c.who], account: c.account, org: c.org });
      expect(r.status, JSON.stringify(r.body).slice(0, 200)).toBe(c.status);
      if (c.status !== 200) expect(r.body.message).toEqual(expect.any(String));
      if (c.sees !== undefined) {
        const prefix = c.sees === 'org' ? 'PROD_' : `${c.sees.toUpperCase()}_`;
        expect(r.body.data.length).toBeGreaterThan(0);
        expect(r.body.data.every((x: any) => x.intgGuid.startsWith(prefix) && x.isOrg === (c.sees === 'org' ? 1 : 0))).toBe(true);
      }
    },
  );

  it('refuses the account user a token with a clear {message}', async () => {
    const r = await h.exchange({ keyId: 'USER' }, 'user-secret');
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/account user/);
    expect(r.body.token).toBeUndefined();
  });

  it('refuses a sub-account admin the nextPage of a primary-account search', async () => {
    const first = await h.call('POST', 'Activities/DNSs/search', { body: { returns: ['fqdn'] } });
    const r = await parse(await fetch(first.body.paging.urls.nextPage, { headers: { Authorization: `Bearer ${tokens.sub}`, 'Content-Type': 'application/json' } }));
    expect(r.status).toBe(403);
  });

  it('parses --key specs and refuses bad ones', () => {
    expect(parseKeySpec('K:S:sub-account-admin:staging,dev:ops@example.com')).toEqual({
      keyId: 'K',
      secret: 'S',
      role: 'sub-account-admin',
      accounts: ['staging', 'dev'],
      user: 'ops@example.com',
    });
    expect(parseKeySpec('K:S:org-admin')).toEqual({ keyId: 'K', secret: 'S', role: 'org-admin' });
    expect(() => parseKeySpec('K:S:boss')).toThrow(/unknown role/);
    expect(() => parseKeySpec('K:S')).toThrow(/ID:SECRET:ROLE/);
    expect(() => parseKeySpec('K:topsecret:boss')).not.toThrow(/topsecret/);
  });

  it('refuses keys that contradict the organization', async () => {
    const bad = (keys: EmulatorOptions['keys']) => startEmulator({ accounts: ['prod', 'staging'], keys });
    await expect(bad([{ keyId: 'A', secret: 's', role: 'sub-account-admin', accounts: ['prod'] }])).rejects.toThrow(/primary account/);
    await expect(bad([{ keyId: 'A', secret: 's', role: 'sub-account-admin' }])).rejects.toThrow(/needs the sub-accounts/);
    await expect(bad([{ keyId: 'A', secret: 's', role: 'sub-account-admin', accounts: ['nope'] }])).rejects.toThrow(/not one of/);
    await expect(
      bad([
        { keyId: 'A', secret: 's', role: 'org-admin', user: 'u' },
        { keyId: 'B', secret: 's', role: 'account-user', user: 'u' },
      ]),
    ).rejects.toThrow(/two roles/);
    const many = Array.from({ length: 21 }, (_, i) => ({ keyId: `K${i}`, secret: 's', role: 'org-admin' as const, user: 'u' }));
    await expect(bad(many)).rejects.toThrow(/at most 20/);
  });
});

describe('container registry response (seed 000)', () => {
  it('replaces crossAccountCredentials by masked accessKeyCredentials and echoes the listed members', async () => {
    const r = await h.call('POST', 'ContainerRegistries', {
      body: {
        name: 'ecr-role',
        type: 'ContVulnCfg',
        enabled: 1,
        data: {
          registryType: 'AWS_ECR',
          awsAuthType: 'AWS_IAM',
          registryDomain: '123456789012.dkr.ecr.us-east-1.amazonaws.com',
          crossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/ecr', externalId: 'ext-1' },
          limitNumImg: 5,
          limitByRep: [],
          limitByTag: ['*'],
          limitByLabel: [],
          nonOsPackageEval: true,
        },
      },
    });
    expect(r.status).toBe(201);
    const data = r.body.data.data;
    expect(data.crossAccountCredentials).toBeUndefined();
    expect(data.accessKeyCredentials).toEqual({ accessKeyId: '', secretAccessKey: '' });
    expect(data).toMatchObject({
      registryType: 'AWS_ECR',
      registryDomain: '123456789012.dkr.ecr.us-east-1.amazonaws.com',
      limitByTag: ['*'],
      limitByLabel: [],
      limitByRep: [],
      limitNumImg: 5,
      identifierTag: [],
    });
    expect(JSON.stringify(r.body)).not.toContain('ext-1');
    expect((await h.call('GET', `ContainerRegistries/${r.body.data.intgGuid}`)).body.data.data).toEqual(data);
  });
});

// ---------------------------------------------------------------------------------------------
// Who wrote what: createdOrUpdatedBy/Time on the record, an audit entry with the key's user.

describe('attribution of writes', () => {
  it('a channel changed with a second key names that key\'s user and time; the audit log has the entry', async () => {
    const created = await h.call('POST', 'AlertChannels', { body: slack('attributed') });
    expect(created.body.data.createdOrUpdatedBy).toBe('admin@example.com');
    const guid = created.body.data.intgGuid;
    const changed = await h.call('PATCH', `AlertChannels/${guid}`, { token: tokens.second, body: { enabled: 0 } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.createdOrUpdatedBy).toBe('second@example.com');
    expect(changed.body.data.createdOrUpdatedTime).toBe(new Date(NOW).toISOString());
    const read = await h.call('GET', `AlertChannels/${guid}`);
    expect(read.body.data.createdOrUpdatedBy).toBe('second@example.com');

    const audit = await h.call('POST', 'AuditLogs/search', {
      body: { filters: [{ field: 'userName', expression: 'eq', value: 'second@example.com' }] },
    });
    expect(audit.status).toBe(200);
    const entry = audit.body.data.find((a: any) => a.eventDescription.includes(guid));
    expect(entry).toMatchObject({ accountName: 'prod', userName: 'second@example.com', userAction: 'update', eventName: 'Update alert channel', createdTime: new Date(NOW).toISOString() });
    expect(Object.keys(entry).sort()).toEqual(['accountName', 'createdTime', 'eventDescription', 'eventName', 'userAction', 'userName']);
  });

  it('keeps audit logs per account: a sub-account admin\'s write is in staging\'s log only', async () => {
    const r = await h.call('POST', 'CloudAccounts', { token: tokens.sub, body: awsCfg('by-ops') });
    expect(r.status).toBe(201);
    expect(r.body.data.intgGuid).toMatch(/^STAGING_/);
    expect(r.body.data.createdOrUpdatedBy).toBe('ops@example.com');
    const mine = (log: Reply) => log.body.data.filter((a: any) => a.userName === 'ops@example.com' && a.eventDescription.includes('by-ops'));
    expect(mine(await h.call('GET', 'AuditLogs', { account: 'staging' }))).toHaveLength(1);
    expect(mine(await h.call('GET', 'AuditLogs', { account: 'prod' }))).toHaveLength(0);
    expect(mine(await h.call('GET', 'AuditLogs', { org: true }))).toHaveLength(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Buckets: per functionality and per user (two keys of one user share them); headers on every answer.

describe('rate-limit buckets per user', () => {
  it('two keys of one user share a bucket; another user has its own', async () => {
    const emu = await startEmulator({
      rateLimit: 3,
      clock: manualClock(NOW),
      accounts: ['prod', 'staging'],
      keys: [
        { keyId: 'A1', secret: 'a', role: 'org-admin', user: 'alice' },
        { keyId: 'A2', secret: 'a', role: 'org-admin', user: 'alice' },
        { keyId: 'B1', secret: 'b', role: 'sub-account-admin', accounts: ['staging'], user: 'bob' },
      ],
    });
    try {
      const token = async (k: string, s: string) => (await parse(await fetch(`${emu.url}/api/v2/access/tokens`, tokenRequest(emu, k, s)))).body.token as string;
      const a1 = await token('A1', 'a');
      const a2 = await token('A2', 'a');
      const b1 = await token('B1', 'b');
      const get = async (t: string, path = 'AlertChannels') =>
        fetch(`${emu.url}/api/v2/${path}`, { headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' } });
      const remaining = (r: Response) => r.headers.get('RateLimit-Remaining');
      expect(remaining(await get(a1))).toBe('2');
      expect(remaining(await get(a2))).toBe('1');
      expect(remaining(await get(a1))).toBe('0');
      const refused = await get(a2);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('RateLimit-Reset')).toBe('1200');
      expect((await get(b1)).status).toBe(200);
      expect(remaining(await get(a1, 'AlertRules'))).toBe('2');
      // The token exchange: alice spent 2 of 3, bob 1.
      expect((await fetch(`${emu.url}/api/v2/access/tokens`, tokenRequest(emu, 'A2', 'a'))).status).toBe(201);
      expect((await fetch(`${emu.url}/api/v2/access/tokens`, tokenRequest(emu, 'A1', 'a'))).status).toBe(429);
      expect((await fetch(`${emu.url}/api/v2/access/tokens`, tokenRequest(emu, 'B1', 'b'))).status).toBe(201);
    } finally {
      await emu.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The shared search shape on the activity searches: 16 expressions, value/values rules, returns.

const VALID: [string, Record<string, unknown>][] = [
  ['eq', { value: 'LOGIN' }],
  ['ne', { value: 'LOGIN' }],
  ['in', { values: ['LOGIN'] }],
  ['not_in', { values: ['LOGIN'] }],
  ['like', { value: 'LOG%' }],
  ['not_like', { value: 'LOG%' }],
  ['ilike', { value: 'log%' }],
  ['not_ilike', { value: 'log%' }],
  ['rlike', { value: '^LOG' }],
  ['not_rlike', { value: '^LOG' }],
  ['gt', { value: 'LOGIN' }],
  ['lt', { value: 'LOGIN' }],
  ['ge', { value: 'LOGIN' }],
  ['le', { value: 'LOGIN' }],
  ['between', { values: ['A', 'M'] }],
];
const INVALID: [string, Record<string, unknown>, RegExp][] = [
  ['expr', { value: 'x' }, /reserved/],
  ['eq', { values: ['x'] }, /value: required/],
  ['eq', { value: 'x', values: ['x'] }, /values: not allowed/],
  ['in', { value: 'x' }, /value: not allowed/],
  ['not_in', {}, /values: required/],
  ['between', { values: ['M', 'A'] }, /upper bound/],
  ['between', { values: ['A', 'B', 'C'] }, /two items/],
  ['rlike', { value: '(' }, /regular expression/],
  ['contains', { value: 'x' }, /must be one of/],
];

describe('search rules (UserLogins, field activityType)', () => {
  const run = (filter: Record<string, unknown>) =>
    h.call('POST', 'Activities/UserLogins/search', {
      body: { timeFilter: { startTime: '2025-06-02T08', endTime: '2025-06-02T09' }, filters: [{ field: 'activityType', ...filter }], returns: ['activityType'] },
    });

  it('has all 16 expressions', () => {
    expect(new Set([...VALID.map((v) => v[0]), 'expr']).size).toBe(16);
  });

  it.each(VALID)('%s is accepted and applied', async (expression, member) => {
    const r = await run({ expression, ...member });
    expect(r.status).toBe(200);
    const types = r.body.data.map((x: any) => x.activityType);
    const all = ['LOGIN', 'LOGOFF'];
    const expected: Record<string, string[]> = {
      eq: ['LOGIN'],
      ne: ['LOGOFF'],
      in: ['LOGIN'],
      not_in: ['LOGOFF'],
      like: all,
      not_like: [],
      ilike: all,
      not_ilike: [],
      rlike: all,
      not_rlike: [],
      gt: ['LOGOFF'],
      lt: [],
      ge: all,
      le: ['LOGIN'],
      between: all,
    };
    expect([...new Set(types)].sort()).toEqual(expected[expression]);
  });

  it.each(INVALID)('%s %j is 400', async (expression, member, message) => {
    const r = await run({ expression, ...member });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });

  it('returns only the `returns` fields (dotted names keep nested members)', async () => {
    const r = await h.call('POST', 'Configs/ComplianceEvaluations/search', {
      body: { dataset: 'AzureCompliance', timeFilter: { startTime: '2025-06-02T08', endTime: '2025-06-02T09' }, returns: ['id', 'account.AccountId'] },
    });
    expect(r.body.data[0]).toEqual({ id: expect.any(String), account: { AccountId: expect.any(String) } });
  });
});
