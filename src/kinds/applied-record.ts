// The record of an account's last successful apply, as a record of the service: a custom alert
// profile `POSTUREOPS_APPLIED` whose one template holds the applied commit and the service time it
// was written. Only a holder of the service's API key can write it, the same credential that could
// change the account directly, so a forged record costs as much as the change it would hide. Alerting
// is unaffected: no rule refers to the profile.

import { isObject } from '../model/json.js';
import { apiPath, request } from './common.js';
import { PROFILES_COLLECTION, PROFILES_PATH } from './alert-profile/records.js';
import { baseOf, profilesOf } from './lease-record.js';
import type { AppliedData, AppliedHook, LiveResource, RequestContext } from './types.js';

export const APPLIED_ID = 'POSTUREOPS_APPLIED';
const TEMPLATE_NAME = 'Applied';
/** Marks the template text as ours (and its format's version). */
const TEXT_TAG = 'postureops-applied/1 ';

function template(data: AppliedData) {
  return {
    name: TEMPLATE_NAME,
    eventName: 'postureops last applied commit',
    subject: 'postureops: the last commit applied to this account; do not edit',
    // Hex and digits only: no brace for the service to read as a placeholder.
    description: `${TEXT_TAG}commit=${data.commit} stamp=${data.stamp}`,
  };
}

function readTemplate(alerts: unknown): AppliedData | undefined {
  if (!Array.isArray(alerts) || alerts.length !== 1) return undefined;
  const t = alerts[0] as unknown;
  if (!isObject(t) || t.name !== TEMPLATE_NAME || typeof t.description !== 'string') return undefined;
  const m = /^postureops-applied\/1 commit=([0-9a-f]{40}) stamp=([0-9]{1,15})$/.exec(t.description);
  return m ? { commit: m[1], stamp: Number(m[2]) } : undefined;
}

export const appliedRecord: AppliedHook = {
  listPath: PROFILES_PATH,

  read(body) {
    const p = profilesOf(body).find((x) => isObject(x) && x.alertProfileId === APPLIED_ID);
    if (!isObject(p)) return undefined;
    return readTemplate(p.alerts) ?? 'unreadable';
  },

  writeRequest(data: AppliedData, listBody: unknown, ctx: RequestContext) {
    if (profilesOf(listBody).some((x) => isObject(x) && x.alertProfileId === APPLIED_ID)) return appliedRecord.replaceRequest(data, ctx);
    const base = baseOf(listBody);
    if (base === undefined) throw new Error('the account has no predefined alert profile with templates for the applied record to extend');
    return request(ctx, 'POST', PROFILES_PATH, { alertProfileId: APPLIED_ID, extends: base, alerts: [template(data)] });
  },

  replaceRequest: (data: AppliedData, ctx: RequestContext) => request(ctx, 'PATCH', apiPath(PROFILES_COLLECTION, APPLIED_ID), { alerts: [template(data)] }),

  // The profile and its template (a resource of its own, whose parent is the profile).
  owns: (live: LiveResource) => (live.parent !== undefined ? live.parent === APPLIED_ID : live.kind === 'AlertProfile' && live.name === APPLIED_ID),
};
