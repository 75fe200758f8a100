// The predefined policies as GET /api/v2/Policies lists them beside the custom ones (api-facts.md
// "Policies", "Predefined policy state"): ids `<vendor>-global-<n>`, owner the vendor. Their state
// (enabled, severity) is all a client may change; severities are answered in lower case.

import type { JsonObject } from '../../model/json.js';
import { isPredefinedPolicy } from '../policy/ids.js';
import { POLICIES_COLLECTION } from '../policy/index.js';
import { apiPath, lastChangeOf, recordList, requireString, stringList } from '../common.js';
import type { FetchContext } from '../types.js';
import type { LiveResource } from '../../model/resource.js';

export { POLICIES_COLLECTION };
export const POLICIES_PATH = apiPath(POLICIES_COLLECTION);

/** The severities of a policy, by name (api-facts.md: answers are lower case; any case is read). */
export const POLICY_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** The number ending a predefined id, for the service's order (1, 2, 8, 39, ...). */
export const globalNumber = (id: string): number => Number(/-([0-9]+)$/.exec(id)?.[1] ?? Number.NaN);

/** A severity as the service answers it (lower case), or undefined when it is none. */
export function severityName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const s = value.toLowerCase();
  return (POLICY_SEVERITIES as readonly string[]).includes(s) ? s : undefined;
}

/** The predefined policies of the account, as live resources of `kind`: state in spec, tags and title in info. */
export async function readPredefinedPolicies(ctx: FetchContext, kind: string): Promise<LiveResource[]> {
  const out: LiveResource[] = [];
  for (const rec of recordList(await ctx.get(POLICIES_PATH), POLICIES_PATH)) {
    const id = requireString(rec, 'policyId', POLICIES_PATH);
    // The custom ones are Policy documents' (the Policy kind lists these as the service's).
    if (!isPredefinedPolicy(rec)) continue;
    const spec: JsonObject = { enabled: rec.enabled === true || rec.enabled === 1 || rec.enabled === 'true' };
    // A severity the service may have added since is carried as it reads.
    if (typeof rec.severity === 'string') spec.severity = severityName(rec.severity) ?? rec.severity;
    const info: JsonObject = { tags: stringList(rec.tags) };
    if (typeof rec.title === 'string') info.title = rec.title;
    if (typeof rec.policyType === 'string') info.policyType = rec.policyType;
    const live: LiveResource = { kind, account: ctx.account, name: id, id, spec, info };
    const lastChange = lastChangeOf(rec.lastUpdateUser, rec.lastUpdateTime);
    if (lastChange) live.lastChange = lastChange;
    out.push(live);
  }
  return out.sort((a, b) => globalNumber(a.id) - globalNumber(b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
