// What queries, policies and policy exceptions share: the account's queries and policies (the
// predefined ones added on first use, from the emulator's table for its prefix and vendor), the
// checks every one of them makes, and carried members.

import { HttpError, type RequestContext } from '../http.js';
import type { PolicyRecord, QueryRecord, ScopeData } from '../model.js';
import { predefinedPolicies, predefinedQueries } from '../predefined-policies.js';
import { invalidData } from '../validation.js';

/** The vendor's prefix (`SVC_`, `LW_`) and name (`owner` of predefined content, start of `<vendor>-global-<n>`). */
export interface Vendor {
  prefix: string;
  name: string;
}

export function queriesOf(scope: ScopeData, vendor: Vendor): QueryRecord[] {
  return (scope.queries ??= predefinedQueries(vendor.prefix, vendor.name));
}

export function policiesOf(scope: ScopeData, vendor: Vendor): PolicyRecord[] {
  return (scope.policies ??= predefinedPolicies(vendor.prefix, vendor.name));
}

/** The tenant part of a custom policy id: the account's name in lower case. */
export const tenantOf = (ctx: RequestContext): string => (ctx.account ?? ctx.guidPrefix).toLowerCase();

/** 400 when `body` carries a member a client must not send (an identity on update). */
export function refuseMembers(body: Record<string, unknown>, names: readonly string[], why: string): void {
  const sent = names.filter((n) => body[n] !== undefined);
  if (sent.length > 0) throw invalidData(sent.map((n) => `${n}: ${why}`));
}

/** A record answered with the members it carries (seeded, not modelled) beneath the modelled ones. */
export function withCarried(view: Record<string, unknown>, carried: Record<string, unknown> | undefined): Record<string, unknown> {
  return carried === undefined ? view : { ...structuredClone(carried), ...view };
}

/** The account's policy named by `?policyId=` (every verb of /Exceptions), or 400 / 404. */
export function policyOfQuery(ctx: RequestContext, vendor: Vendor): PolicyRecord {
  const id = ctx.query.get('policyId');
  if (id === null || id === '') throw new HttpError(400, 'Invalid data: #1: [policyId: the query parameter policyId is required]');
  const p = policiesOf(ctx.scope, vendor).find((x) => x.policyId === id);
  if (p === undefined) throw new HttpError(404, `Policy ${id} not found`);
  return p;
}
