// What report rules and data export rules share (api-facts.md: "the same mcGuid + filters +
// intgGuidList layout as alert rules"): the name, description and enabled of their filters, and how
// a create sets and a PATCH changes them with the channel list.

import type { RequestContext } from '../http.js';

export interface BaseFilters {
  name: string;
  description: string;
  enabled: number;
}

interface RuleCore {
  intgGuidList: string[];
  filters: BaseFilters;
  createdOrUpdatedBy: string;
  createdOrUpdatedTime: number;
}

/** The filters a create sets: description "" and enabled 1 unless given. */
export function newBaseFilters(f: Record<string, unknown>): BaseFilters {
  return {
    name: f.name as string,
    description: typeof f.description === 'string' ? f.description : '',
    enabled: typeof f.enabled === 'number' ? f.enabled : 1,
  };
}

/** A PATCH: `intgGuidList` replaced, the base filters changed one by one, the writer recorded. Returns the body's filters. */
export function patchRuleCore(r: RuleCore, body: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> {
  if (Array.isArray(body.intgGuidList)) r.intgGuidList = [...(body.intgGuidList as string[])];
  const f = (body.filters ?? {}) as Record<string, unknown>;
  if (typeof f.name === 'string') r.filters.name = f.name;
  if (typeof f.description === 'string') r.filters.description = f.description;
  if (typeof f.enabled === 'number') r.filters.enabled = f.enabled;
  r.createdOrUpdatedBy = ctx.user;
  r.createdOrUpdatedTime = ctx.now;
  return f;
}
