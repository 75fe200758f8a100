// The apply lease as a record of the service: a custom alert profile `POSTUREOPS_LEASE_<n>`. The
// service refuses (409) to create a profile whose alertProfileId exists in the account, so creating
// generation n+1 is an atomic compare-and-set that exactly one run wins (integration names are not
// unique, ids are). The profile extends a predefined profile that has templates, as the service
// requires, and carries one template whose text holds the owner, the holder and the service time of
// the last renewal. Alerting is unaffected: no rule refers to the profile.

import { isObject } from '../model/json.js';
import { apiPath, request } from './common.js';
import { isPredefined, PROFILES_COLLECTION, PROFILES_PATH } from './alert-profile/records.js';
import { detectPrefix, PREDEFINED_PROFILE_PREFIX } from './alert-profile/ids.js';
import type { LeaseData, LeaseHook, LeaseRecord, LiveResource, RequestContext } from './types.js';

export const LEASE_ID_PREFIX = 'POSTUREOPS_LEASE_';
const LEASE_ID = /^POSTUREOPS_LEASE_([1-9][0-9]{0,14})$/;
const TEMPLATE_NAME = 'Lease';
/** Marks the template text as ours (and its format's version). */
const TEXT_TAG = 'postureops-apply-lease/1 ';

export function leaseId(generation: number): string {
  return `${LEASE_ID_PREFIX}${generation}`;
}

function generationOf(id: string): number | undefined {
  const m = LEASE_ID.exec(id);
  return m ? Number(m[1]) : undefined;
}

/**
 * The record's data as JSON without a brace inside it (the service reads `{{...}}` as a placeholder):
 * the object is flat, so every brace but the outer two is in a string, where `\u007b` means `{`.
 */
function encode(data: LeaseData): string {
  const inner = JSON.stringify({ owner: data.owner, holder: data.holder, stamp: data.stamp }).slice(1, -1);
  return `{${inner.replace(/\{/g, '\\u007b').replace(/\}/g, '\\u007d')}}`;
}

function template(data: LeaseData) {
  return {
    name: TEMPLATE_NAME,
    eventName: 'postureops apply lease',
    subject: 'postureops apply lease: do not edit (postureops unlock frees it)',
    description: TEXT_TAG + encode(data),
  };
}

function readTemplate(alerts: unknown): LeaseData | undefined {
  if (!Array.isArray(alerts) || alerts.length !== 1) return undefined;
  const t = alerts[0] as unknown;
  if (!isObject(t) || t.name !== TEMPLATE_NAME || typeof t.description !== 'string' || !t.description.startsWith(TEXT_TAG)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(t.description.slice(TEXT_TAG.length));
  } catch {
    // Not JSON (edited): `parsed` stays undefined, which is unreadable below.
  }
  if (!isObject(parsed)) return undefined;
  const { owner, holder, stamp } = parsed;
  // Number.isFinite holds for finite numbers only (it converts nothing): a stamp as text is unreadable too.
  if (typeof owner !== 'string' || owner === '' || typeof holder !== 'string' || !Number.isFinite(stamp)) return undefined;
  return { owner, holder, stamp: stamp as number };
}

/** Profiles of a list answer, bare or wrapped in `data` (api-facts: both occur). */
export function profilesOf(body: unknown): unknown[] {
  const data = isObject(body) && 'data' in body ? body.data : body;
  return Array.isArray(data) ? data : [];
}

/**
 * A predefined profile that has templates: the only kind of base a custom profile may extend. Which
 * profiles are predefined is read from the account itself (the vendor prefix is the service's, SVC_
 * here and LW_ on the real service), not from the tool's default.
 */
export function baseOf(body: unknown): string | undefined {
  const profiles = profilesOf(body).filter(isObject).filter((p) => typeof p.alertProfileId === 'string');
  const nodes = profiles.map((p) => ({ name: p.alertProfileId as string, ...(typeof p.extends === 'string' && p.extends !== '' ? { parent: p.extends } : {}) }));
  const prefix = detectPrefix(nodes) ?? PREDEFINED_PROFILE_PREFIX;
  const bases = profiles
    .filter((p) => isPredefined(p.alertProfileId as string, prefix) && Array.isArray(p.alerts) && p.alerts.length > 0)
    .map((p) => p.alertProfileId as string)
    .sort();
  return bases[0];
}

export const profileLease: LeaseHook = {
  listPath: PROFILES_PATH,
  recordId: leaseId,

  records(body) {
    const out: LeaseRecord[] = [];
    for (const p of profilesOf(body)) {
      if (!isObject(p) || typeof p.alertProfileId !== 'string') continue;
      const generation = generationOf(p.alertProfileId);
      if (generation === undefined) continue;
      const data = readTemplate(p.alerts);
      out.push({ id: p.alertProfileId, generation, ...(data ? { data } : {}) });
    }
    return out.sort((a, b) => a.generation - b.generation);
  },

  createRequest(generation, data, listBody, ctx: RequestContext) {
    const base = baseOf(listBody);
    if (base === undefined) throw new Error('the account has no predefined alert profile with templates for the apply lease to extend');
    return request(ctx, 'POST', PROFILES_PATH, { alertProfileId: leaseId(generation), extends: base, alerts: [template(data)] });
  },

  renewRequest: (id, data, ctx) => request(ctx, 'PATCH', apiPath(PROFILES_COLLECTION, id), { alerts: [template(data)] }),

  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(PROFILES_COLLECTION, id)),

  // The profile and its template (a resource of its own, whose parent is the profile).
  owns: (live: LiveResource) =>
    live.parent !== undefined ? generationOf(live.parent) !== undefined : live.kind === 'AlertProfile' && generationOf(live.name) !== undefined,
};
