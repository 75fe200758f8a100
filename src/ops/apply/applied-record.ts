// The record of an account's last successful apply, as a record of the service: a custom alert
// profile `POSTUREOPS_APPLIED` whose one template holds the applied commit and the service time it
// was written. Only a holder of the service's API key can write it, the same credential that could
// change the account directly, so a forged record costs as much as the change it would hide. Alerting
// is unaffected: no rule refers to the profile. It is the tool's record, not a user kind's: the
// AlertProfile kind knows nothing of it, and the live read drops it (isAppliedRecord).

import { isObject } from '../../model/json.js';
import type { ApiRequest } from '../../api/types.js';
import type { LiveResource } from '../../model/resource.js';
import { apiPath, request } from '../../kinds/common.js';
import { PROFILES_COLLECTION, PROFILES_PATH } from '../../kinds/alert-profile/records.js';
import { KINDS } from '../../kinds/index.js';
import type { RequestContext } from '../../kinds/types.js';
import { baseOf, profilesOf } from '../lease/lease-record.js';

/** What the last successful apply of an account recorded: the commit it applied, at a service time. */
export interface AppliedData {
  /** The git commit whose configuration of the account was fully applied. */
  commit: string;
  /** The service's time (Date header, epoch ms) when it was written. */
  stamp: number;
}

export const APPLIED_ID = 'POSTUREOPS_APPLIED';
/** A GET of this path lists the record. */
export const APPLIED_LIST_PATH = PROFILES_PATH;
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

/** The record in a list answer: undefined when absent, 'unreadable' when edited. */
export function readAppliedRecord(body: unknown): AppliedData | 'unreadable' | undefined {
  const p = profilesOf(body).find((x) => isObject(x) && x.alertProfileId === APPLIED_ID);
  if (!isObject(p)) return undefined;
  return readTemplate(p.alerts) ?? 'unreadable';
}

/** Replaces the record that exists (every apply but an account's first): what the pre-flight counts. */
export function replaceAppliedRequest(data: AppliedData, ctx: RequestContext): ApiRequest {
  return request(ctx, 'PATCH', apiPath(PROFILES_COLLECTION, APPLIED_ID), { alerts: [template(data)] });
}

/** Writes the record (created or replaced); `listBody`: the list answer it follows. */
export function writeAppliedRequest(data: AppliedData, listBody: unknown, ctx: RequestContext): ApiRequest {
  if (profilesOf(listBody).some((x) => isObject(x) && x.alertProfileId === APPLIED_ID)) return replaceAppliedRequest(data, ctx);
  const base = baseOf(listBody);
  if (base === undefined) throw new Error('the account has no predefined alert profile with templates for the applied record to extend');
  return request(ctx, 'POST', PROFILES_PATH, { alertProfileId: APPLIED_ID, extends: base, alerts: [template(data)] });
}

const PROFILE_KINDS = new Set(KINDS.filter((k) => k.collection === PROFILES_COLLECTION).map((k) => k.kind));

/** The record as the live read sees it: the profile, or its template (a resource whose parent is the profile). */
export function isAppliedRecord(live: LiveResource): boolean {
  if (!PROFILE_KINDS.has(live.kind)) return false;
  return live.parent !== undefined ? live.parent === APPLIED_ID : live.name === APPLIED_ID;
}
