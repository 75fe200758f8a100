// Alert profiles and their templates come from one list call: both kinds read it through here,
// so the engine's memoised ctx.get makes that call once for the two of them.

import { apiPath, recordList, requireString } from '../common.js';
import { isObject, type Json, type JsonObject } from '../../model/json.js';
import { PREDEFINED_PROFILE_PREFIX } from './ids.js';
import type { FetchContext } from '../types.js';

export const PROFILES_COLLECTION = 'AlertProfiles';
export const PROFILES_PATH = apiPath(PROFILES_COLLECTION);
export const TEMPLATE_MEMBERS = ['eventName', 'subject', 'description'] as const;

export interface ProfileRecord {
  id: string;
  extends?: string;
  fields: Json[];
  descriptionKeys: Json[];
  alerts: { name: string; spec: JsonObject }[];
}

/** A profile of the service: its id starts with the prefix (whatever the case of what follows). */
export function isPredefined(profileId: string, prefix: string = PREDEFINED_PROFILE_PREFIX): boolean {
  return profileId.startsWith(prefix);
}

/** A template's identity and id: `<alertProfileId>.<alertTemplateName>` (how policies name it). */
export function templateId(profileId: string, templateName: string): string {
  return `${profileId}.${templateName}`;
}

/** `[profileId, templateName]`; profile ids carry no dot (service ids are upper-case words and `_`). */
export function splitTemplateId(id: string): [string, string] {
  const dot = id.indexOf('.');
  return dot < 0 ? [id, ''] : [id.slice(0, dot), id.slice(dot + 1)];
}

/**
 * Template name of a template resource: its identity without the known parent's prefix. A name
 * without that prefix is taken as the bare template name (how a plan may list a profile's children).
 */
export function templateNameOf(resource: { name: string; parent?: string }): string {
  if (resource.parent === undefined) return splitTemplateId(resource.name)[1];
  return resource.name.startsWith(resource.parent + '.') ? resource.name.slice(resource.parent.length + 1) : resource.name;
}

/** Canonical template spec from a file entry or a service record. */
export function templateSpec(rec: JsonObject): JsonObject {
  const spec: JsonObject = {};
  for (const m of TEMPLATE_MEMBERS) spec[m] = typeof rec[m] === 'string' ? rec[m] : '';
  return spec;
}

const array = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

export async function readProfiles(ctx: FetchContext): Promise<ProfileRecord[]> {
  return recordList(await ctx.get(PROFILES_PATH), PROFILES_PATH).map((rec) => ({
    id: requireString(rec, 'alertProfileId', PROFILES_PATH),
    ...(typeof rec.extends === 'string' && rec.extends !== '' ? { extends: rec.extends } : {}),
    fields: array(rec.fields),
    descriptionKeys: array(rec.descriptionKeys),
    alerts: array(rec.alerts)
      .filter(isObject)
      .map((a) => ({ name: requireString(a, 'name', PROFILES_PATH), spec: templateSpec(a) })),
  }));
}

/** Placeholder keys a profile offers: each descriptionKey's name (and the key inside its `{{spec}}`). */
export function descriptionKeyNames(info: JsonObject | undefined): string[] {
  const keys = new Set<string>();
  for (const k of array(info?.descriptionKeys)) {
    if (!isObject(k)) continue;
    if (typeof k.name === 'string') keys.add(k.name);
    const m = typeof k.spec === 'string' ? /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(k.spec) : null;
    if (m) keys.add(m[1]);
  }
  return [...keys].sort();
}
