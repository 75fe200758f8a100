// /api/v2/ReportRules (api-facts.md "Report rules"): which scheduled reports go to which e-mail
// channels. `intgGuidList` takes EmailUser channels only; `reportNotificationTypes` answers every
// report the service knows (false where not ticked) plus any other name it was given, as the service
// keeps names it was sent. No search (api-facts.md lists none for report rules).

import { notFound, objectBody, type Handler, type RequestContext } from '../http.js';
import { newMcGuid } from '../ids.js';
import type { ReportRuleRecord, ScopeData } from '../model.js';
import { ENABLED, NAME } from '../request-schemas.js';
import type { Route } from '../router.js';
import { check, invalidData, type Schema } from '../validation.js';
import { groupsOf } from './resource-groups.js';
import { newBaseFilters, patchRuleCore } from './rule-filters.js';

/** The emulator's own table of reports (api-facts.md). */
export const REPORTS = [
  'agentEvents',
  'platformEvents',
  'awsCloudtrailEvents',
  'awsComplianceEvents',
  'azureComplianceEvents',
  'azureActivityLogEvents',
  'gcpAuditTrailEvents',
  'gcpComplianceEvents',
  'openShiftCompliance',
  'openShiftComplianceEvents',
  'trendReport',
  'awsCisS3',
  'hipaa',
  'iso2700',
  'nist800-53Rev4',
  'nist800-171Rev2',
  'pci',
  'soc',
  'awsSocRev2',
  'azureCis',
  'azureCis131',
  'azurePci',
  'azureSoc',
  'gcpCis',
  'gcpCis12',
  'gcpHipaa',
  'gcpHipaaRev2',
  'gcpIso27001',
  'gcpK8s',
  'gcpPci',
  'gcpPciRev2',
  'gcpSoc',
  'gcpSocRev2',
] as const;

const REPORT_TYPE = 'Report';
const STRINGS: Schema = { type: 'array', items: { type: 'string', minLength: 1 } };
const SEVERITIES: Schema = { type: 'array', items: { type: 'integer', minimum: 1, maximum: 5 } };
const filtersSchema = (required: string[]): Schema => ({
  type: 'object',
  required,
  properties: { name: NAME, description: { type: 'string' }, enabled: ENABLED, severity: SEVERITIES, resourceGroups: STRINGS },
  additionalProperties: true,
});
const NOTIFICATIONS: Schema = { type: 'object', additionalProperties: true };
export const REPORT_RULE_CREATE: Schema = {
  type: 'object',
  required: ['type', 'intgGuidList', 'filters', 'reportNotificationTypes'],
  properties: { type: { type: 'string', enum: [REPORT_TYPE] }, intgGuidList: STRINGS, filters: filtersSchema(['name']), reportNotificationTypes: NOTIFICATIONS },
  additionalProperties: true,
};
export const REPORT_RULE_PATCH: Schema = {
  type: 'object',
  properties: { type: { type: 'string', enum: [REPORT_TYPE] }, intgGuidList: STRINGS, filters: filtersSchema([]), reportNotificationTypes: NOTIFICATIONS },
  additionalProperties: true,
};

function rulesOf(scope: ScopeData): ReportRuleRecord[] {
  return (scope.reportRules ??= []);
}

export function reportRuleResponse(r: ReportRuleRecord): Record<string, unknown> {
  const types: Record<string, boolean> = Object.fromEntries(REPORTS.map((n) => [n, false]));
  for (const [n, v] of Object.entries(r.reportNotificationTypes)) types[n] = v;
  return {
    ...structuredClone(r.carried ?? {}),
    mcGuid: r.mcGuid,
    type: r.type,
    intgGuidList: [...r.intgGuidList],
    filters: {
      name: r.filters.name,
      description: r.filters.description,
      enabled: r.filters.enabled,
      severity: [...r.filters.severity].sort((a, b) => a - b),
      resourceGroups: [...r.filters.resourceGroups],
      createdOrUpdatedBy: r.createdOrUpdatedBy,
      createdOrUpdatedTime: String(r.createdOrUpdatedTime),
    },
    reportNotificationTypes: types,
  };
}

/** Channels must be EmailUser channels of the account; groups must exist; report flags booleans. */
function checkRefs(ctx: RequestContext, body: Record<string, unknown>): void {
  const errors: string[] = [];
  if (Array.isArray(body.intgGuidList)) {
    (body.intgGuidList as string[]).forEach((g, i) => {
      const channel = ctx.scope.alertChannels.find((c) => c.intgGuid === g);
      if (channel === undefined) errors.push(`intgGuidList/${i}: no alert channel ${g} in this account`);
      else if (channel.type !== 'EmailUser') errors.push(`intgGuidList/${i}: channel ${g} is ${channel.type}; report rules take EmailUser channels only`);
    });
  }
  const filters = body.filters as Record<string, unknown> | undefined;
  if (filters && Array.isArray(filters.resourceGroups)) {
    const known = new Set(groupsOf(ctx.scope, ctx.guidPrefix).map((g) => g.resourceGroupGuid));
    (filters.resourceGroups as string[]).forEach((g, i) => {
      if (!known.has(g)) errors.push(`filters/resourceGroups/${i}: no resource group ${g} in this account`);
    });
  }
  const types = body.reportNotificationTypes as Record<string, unknown> | undefined;
  for (const [n, v] of Object.entries(types ?? {})) if (typeof v !== 'boolean') errors.push(`reportNotificationTypes/${n}: must be boolean`);
  if (errors.length > 0) throw invalidData(errors);
}

function find(ctx: RequestContext): ReportRuleRecord {
  const r = rulesOf(ctx.scope).find((x) => x.mcGuid === ctx.params.mcGuid);
  if (r === undefined) throw notFound();
  return r;
}

const list: Handler = (ctx) => ({ status: 200, body: { data: rulesOf(ctx.scope).map(reportRuleResponse) } });

const create: Handler = (ctx) => {
  const body = objectBody(ctx);
  check(REPORT_RULE_CREATE, body);
  checkRefs(ctx, body);
  const f = body.filters as Record<string, unknown>;
  const r: ReportRuleRecord = {
    mcGuid: newMcGuid(),
    type: REPORT_TYPE,
    intgGuidList: [...(body.intgGuidList as string[])],
    filters: {
      ...newBaseFilters(f),
      severity: Array.isArray(f.severity) ? [...(f.severity as number[])] : [],
      resourceGroups: Array.isArray(f.resourceGroups) ? [...(f.resourceGroups as string[])] : [],
    },
    reportNotificationTypes: { ...(body.reportNotificationTypes as Record<string, boolean>) },
    createdOrUpdatedBy: ctx.user,
    createdOrUpdatedTime: ctx.now,
  };
  rulesOf(ctx.scope).push(r);
  ctx.committed('Create report rule', `Created report rule ${r.filters.name} (${r.mcGuid})`);
  return { status: 201, body: { data: reportRuleResponse(r) } };
};

const get: Handler = (ctx) => ({ status: 200, body: { data: reportRuleResponse(find(ctx)) } });

/** PATCH: `intgGuidList` replaced; `filters` members and report flags updated one by one. */
const patch: Handler = (ctx) => {
  const r = find(ctx);
  const body = objectBody(ctx);
  check(REPORT_RULE_PATCH, body);
  checkRefs(ctx, body);
  const f = patchRuleCore(r, body, ctx);
  if (Array.isArray(f.severity)) r.filters.severity = [...(f.severity as number[])];
  if (Array.isArray(f.resourceGroups)) r.filters.resourceGroups = [...(f.resourceGroups as string[])];
  if (body.reportNotificationTypes !== undefined) Object.assign(r.reportNotificationTypes, body.reportNotificationTypes);
  ctx.committed('Update report rule', `Updated report rule ${r.filters.name} (${r.mcGuid})`);
  return { status: 200, body: { data: reportRuleResponse(r) } };
};

const remove: Handler = (ctx) => {
  const r = find(ctx);
  const rules = rulesOf(ctx.scope);
  rules.splice(rules.indexOf(r), 1);
  ctx.committed('Delete report rule', `Deleted report rule ${r.filters.name} (${r.mcGuid})`);
  return { status: 204 };
};

export const reportRuleRoutes = (): Route[] => [
  {
    pattern: 'ReportRules',
    methods: { GET: list, POST: create },
    docs: {
      GET: { summary: 'List report rules', response: { kind: 'list', type: 'ReportRules' } },
      POST: { summary: 'Create a report rule (EmailUser channels only)', request: REPORT_RULE_CREATE, status: 201, response: { kind: 'one', type: 'ReportRules' } },
    },
  },
  {
    pattern: 'ReportRules/:mcGuid',
    methods: { GET: get, PATCH: patch, DELETE: remove },
    docs: {
      GET: { summary: 'Read one report rule', response: { kind: 'one', type: 'ReportRules' } },
      PATCH: { summary: 'Change a report rule (intgGuidList replaced, filters and reports merged)', request: REPORT_RULE_PATCH, response: { kind: 'one', type: 'ReportRules' } },
      DELETE: { summary: 'Delete a report rule', status: 204, response: { kind: 'none' } },
    },
  },
];
