// The apply lease as a record of the service: a custom alert profile `POSTUREOPS_LEASE_<n>`. The
// service refuses (409) to create a profile whose alertProfileId exists in the account, so creating
// generation n+1 is an atomic compare-and-set that exactly one run wins (integration names are not
// unique, ids are). The profile extends a predefined profile that has templates, as the service
// requires, and carries one template whose text holds the owner, the holder, the service time of
// the last renewal and the state (held, released by its run, freed by unlock). Alerting is
// unaffected: no rule refers to the profile. It is the tool's record, not a user kind's: the
// AlertProfile kind knows nothing of it, and the live read drops it (ownRecord).

import { isObject } from '../../model/json.js';
import type { ApiRequest } from '../../api/types.js';
import type { LiveResource } from '../../model/resource.js';
import { apiPath, request } from '../../kinds/common.js';
import { isPredefined, PROFILES_COLLECTION, PROFILES_PATH } from '../../kinds/alert-profile/records.js';
import { detectPrefix, PREDEFINED_PROFILE_PREFIX } from '../../kinds/alert-profile/ids.js';
import { KINDS } from '../../kinds/index.js';
import type { RequestContext } from '../../kinds/types.js';

/**
 * held: its run may be writing. released: its run ended and every write it sent was answered (or
 * the margin passed since it gave up on one): the next run takes over at once. freed: `unlock` said
 * so; nobody knows when its run last wrote, so the next run waits as for no record.
 */
export type LeaseState = 'held' | 'released' | 'freed';

/** An apply lease as its record holds it (lease.ts runs the protocol). */
export interface LeaseData {
  /** Unique per run. */
  owner: string;
  /** Who holds it, for other runs' messages: a host and process, or a CI run. */
  holder: string;
  /** The service's time (the Date of the read that confirmed it) when the holder last took or renewed it. */
  stamp: number;
  state: LeaseState;
}

/** A lease record in a list answer: generation n is the record `n`; `data` absent when unreadable (edited). */
export interface LeaseRecord {
  id: string;
  generation: number;
  data?: LeaseData;
}

export const LEASE_ID_PREFIX = 'POSTUREOPS_LEASE_';
const LEASE_ID = /^POSTUREOPS_LEASE_([1-9][0-9]{0,14})$/;
const TEMPLATE_NAME = 'Lease';
/** Marks the template text as ours (and its format's version). */
const TEXT_TAG = 'postureops-apply-lease/2 ';
const STATES: readonly LeaseState[] = ['held', 'released', 'freed'];

/** The path a GET lists the records with. */
export const LEASE_LIST_PATH = PROFILES_PATH;

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
  const inner = JSON.stringify({ owner: data.owner, holder: data.holder, stamp: data.stamp, state: data.state }).slice(1, -1);
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
  const { owner, holder, stamp, state } = parsed;
  // Number.isFinite holds for finite numbers only (it converts nothing): a stamp as text is unreadable too.
  if (typeof owner !== 'string' || owner === '' || typeof holder !== 'string' || !Number.isFinite(stamp)) return undefined;
  if (!STATES.includes(state as LeaseState)) return undefined;
  return { owner, holder, stamp: stamp as number, state: state as LeaseState };
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

/** The lease records of a list answer, oldest generation first. */
export function leaseRecords(body: unknown): LeaseRecord[] {
  const out: LeaseRecord[] = [];
  for (const p of profilesOf(body)) {
    if (!isObject(p) || typeof p.alertProfileId !== 'string') continue;
    const generation = generationOf(p.alertProfileId);
    if (generation === undefined) continue;
    const data = readTemplate(p.alerts);
    out.push({ id: p.alertProfileId, generation, ...(data ? { data } : {}) });
  }
  return out.sort((a, b) => a.generation - b.generation);
}

/** Creates generation `generation`; `listBody`: the list answer it follows (the base it extends). */
export function createLeaseRequest(generation: number, data: LeaseData, listBody: unknown, ctx: RequestContext): ApiRequest {
  const base = baseOf(listBody);
  if (base === undefined) throw new Error('the account has no predefined alert profile with templates for the apply lease to extend');
  return request(ctx, 'POST', PROFILES_PATH, { alertProfileId: leaseId(generation), extends: base, alerts: [template(data)] });
}

/** Rewrites a record's data (a renewal, a release, unlock's freeing). */
export function writeLeaseRequest(generation: number, data: LeaseData, ctx: RequestContext): ApiRequest {
  return request(ctx, 'PATCH', apiPath(PROFILES_COLLECTION, leaseId(generation)), { alerts: [template(data)] });
}

/** The kind whose live records the lease records are (the alert profile kind and its template), found by collection. */
const PROFILE_KINDS = new Set(KINDS.filter((k) => k.collection === PROFILES_COLLECTION).map((k) => k.kind));

/** A lease record as the live read sees it: the profile, or its template (a resource whose parent is the profile). */
export function isLeaseRecord(live: LiveResource): boolean {
  if (!PROFILE_KINDS.has(live.kind)) return false;
  return live.parent !== undefined ? generationOf(live.parent) !== undefined : generationOf(live.name) !== undefined;
}
