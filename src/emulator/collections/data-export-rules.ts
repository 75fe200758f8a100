// /api/v2/DataExportRules (api-facts.md "Data export rules"): type `Dataexport`, `intgGuidList` of
// the account's AwsS3 channels only (400 for another type), filters {name, description, enabled
// 0/1, profileVersions}, PATCH without mcGuid, createdOrUpdatedTime or createdOrUpdatedBy, search.

import { HttpError, objectBody, type Handler, type RequestContext } from '../http.js';
import { newMcGuid } from '../ids.js';
import type { DataExportRuleRecord } from '../model.js';
import { ENABLED, NAME, SEARCH } from '../request-schemas.js';
import type { Route } from '../router.js';
import { runSearch } from '../search.js';
import { check, invalidData, type Schema } from '../validation.js';
import { refuseMembers, withCarried } from './policy-data.js';
import { newBaseFilters, patchRuleCore } from './rule-filters.js';

const EXPORT_TYPE = 'Dataexport';
const STRINGS: Schema = { type: 'array', items: { type: 'string', minLength: 1 } };
const filters = (required: string[]): Schema => ({
  type: 'object',
  required,
  properties: { name: NAME, description: { type: 'string' }, enabled: ENABLED, profileVersions: STRINGS },
  additionalProperties: true,
});
export const DATA_EXPORT_CREATE: Schema = {
  type: 'object',
  required: ['type', 'intgGuidList', 'filters'],
  properties: { type: { type: 'string', enum: [EXPORT_TYPE] }, intgGuidList: { ...STRINGS, minItems: 1 }, filters: filters(['name']) },
  additionalProperties: true,
};
export const DATA_EXPORT_PATCH: Schema = {
  type: 'object',
  properties: { type: { type: 'string', enum: [EXPORT_TYPE] }, intgGuidList: { ...STRINGS, minItems: 1 }, filters: filters([]) },
  additionalProperties: true,
};

export function dataExportRuleView(r: DataExportRuleRecord): Record<string, unknown> {
  return withCarried(
    {
      mcGuid: r.mcGuid,
      type: r.type,
      intgGuidList: [...r.intgGuidList],
      filters: {
        name: r.filters.name,
        description: r.filters.description,
        enabled: r.filters.enabled,
        ...(r.filters.profileVersions !== undefined ? { profileVersions: [...r.filters.profileVersions] } : {}),
        createdOrUpdatedBy: r.createdOrUpdatedBy,
        createdOrUpdatedTime: String(r.createdOrUpdatedTime),
      },
    },
    r.carried,
  );
}

/** Every channel of the list must be an AwsS3 channel of the account. */
function checkChannels(ctx: RequestContext, body: Record<string, unknown>): void {
  if (!Array.isArray(body.intgGuidList)) return;
  const errors: string[] = [];
  (body.intgGuidList as string[]).forEach((g, i) => {
    const channel = ctx.scope.alertChannels.find((c) => c.intgGuid === g);
    if (channel === undefined) errors.push(`intgGuidList/${i}: no alert channel ${g} in this account`);
    else if (channel.type !== 'AwsS3') errors.push(`intgGuidList/${i}: channel ${g} is ${channel.type}; data export rules take AwsS3 channels only`);
  });
  if (errors.length > 0) throw invalidData(errors);
}

export function dataExportRuleRoutes(): Route[] {
  const all = (ctx: RequestContext) => (ctx.scope.dataExportRules ??= []);
  function find(ctx: RequestContext): DataExportRuleRecord {
    const r = all(ctx).find((x) => x.mcGuid === ctx.params.mcGuid);
    if (r === undefined) throw new HttpError(404, 'Not found');
    return r;
  }

  const create: Handler = (ctx) => {
    const body = objectBody(ctx);
    check(DATA_EXPORT_CREATE, body);
    checkChannels(ctx, body);
    const f = body.filters as Record<string, unknown>;
    const r: DataExportRuleRecord = {
      mcGuid: newMcGuid(),
      type: EXPORT_TYPE,
      intgGuidList: [...(body.intgGuidList as string[])],
      filters: {
        ...newBaseFilters(f),
        ...(Array.isArray(f.profileVersions) ? { profileVersions: [...(f.profileVersions as string[])] } : {}),
      },
      createdOrUpdatedBy: ctx.user,
      createdOrUpdatedTime: ctx.now,
    };
    all(ctx).push(r);
    ctx.committed('Create data export rule', `Created data export rule ${r.filters.name} (${r.mcGuid})`);
    return { status: 201, body: { data: dataExportRuleView(r) } };
  };

  const patch: Handler = (ctx) => {
    const r = find(ctx);
    const body = objectBody(ctx);
    refuseMembers(body, ['mcGuid', 'createdOrUpdatedTime', 'createdOrUpdatedBy'], 'must not be sent on update');
    // The service writes these; a client that echoes a record back sends them in filters.
    if (body.filters !== null && typeof body.filters === 'object') refuseMembers(body.filters as Record<string, unknown>, ['createdOrUpdatedTime', 'createdOrUpdatedBy'], 'must not be sent on update (filters)');
    check(DATA_EXPORT_PATCH, body);
    checkChannels(ctx, body);
    const f = patchRuleCore(r, body, ctx);
    if (Array.isArray(f.profileVersions)) r.filters.profileVersions = [...(f.profileVersions as string[])];
    ctx.committed('Update data export rule', `Updated data export rule ${r.filters.name} (${r.mcGuid})`);
    return { status: 200, body: { data: dataExportRuleView(r) } };
  };

  const remove: Handler = (ctx) => {
    const r = find(ctx);
    all(ctx).splice(all(ctx).indexOf(r), 1);
    ctx.committed('Delete data export rule', `Deleted data export rule ${r.filters.name} (${r.mcGuid})`);
    return { status: 204 };
  };

  const ONE = { kind: 'one' as const, type: 'DataExportRules' };
  const LIST = { kind: 'list' as const, type: 'DataExportRules' };
  return [
    {
      pattern: 'DataExportRules',
      methods: { GET: (ctx) => ({ status: 200, body: { data: all(ctx).map(dataExportRuleView) } }), POST: create },
      docs: {
        GET: { summary: 'List data export rules', response: LIST },
        POST: { summary: 'Create a data export rule (AwsS3 channels only)', request: DATA_EXPORT_CREATE, status: 201, response: ONE },
      },
    },
    {
      pattern: 'DataExportRules/search',
      methods: { POST: (ctx) => ({ status: 200, body: { data: runSearch(all(ctx).map(dataExportRuleView), ctx.body) } }) },
      docs: { POST: { summary: 'Search data export rules', request: SEARCH, response: LIST } },
    },
    {
      pattern: 'DataExportRules/:mcGuid',
      methods: { GET: (ctx) => ({ status: 200, body: { data: dataExportRuleView(find(ctx)) } }), PATCH: patch, DELETE: remove },
      docs: {
        GET: { summary: 'Read one data export rule', response: ONE },
        PATCH: { summary: 'Change a data export rule (no mcGuid in the body)', request: DATA_EXPORT_PATCH, response: ONE },
        DELETE: { summary: 'Delete a data export rule', status: 204, response: { kind: 'none' } },
      },
    },
  ];
}
