// Alert profiles: a custom profile extends a predefined one and owns its templates. One document
// yields the profile and one AlertTemplate resource per alert, so each template is planned alone.

import type { Diagnostic } from '../../model/diagnostics.js';
import { apiPath, rebaseEnvRefs, request } from '../common.js';
import { isObject, type JsonObject } from '../../model/json.js';
import { checkProfileDocument } from './checks.js';
import { PREDEFINED_PROFILE_PREFIX, predefinedPrefix, PREFIX_SETTING, ROOT_PROFILE_ID } from './ids.js';
import { isPredefined, PROFILES_COLLECTION, PROFILES_PATH, readProfiles, templateId, templateNameOf, templateSpec } from './records.js';
import { SCHEMA_FILE, schemas } from './schema.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import type { FetchContext, Kind, KindSettings } from '../types.js';

function fromDocument(doc: ResourceDocument): { resources: DesiredResource[]; diagnostics: Diagnostic[] } {
  const base = typeof doc.spec.extends === 'string' ? doc.spec.extends : '';
  const profile: DesiredResource = {
    kind: 'AlertProfile',
    account: doc.account,
    name: doc.name,
    spec: { extends: base },
    envRefs: rebaseEnvRefs(doc.envRefs, '/extends', '/extends'),
    source: doc.source,
  };
  const resources = [profile];
  const seen = new Set<string>();
  (Array.isArray(doc.spec.alerts) ? doc.spec.alerts : []).forEach((alert, i) => {
    // A repeated name is reported by validation (duplicate-template); one identity, the first, is kept.
    if (!isObject(alert) || typeof alert.name !== 'string' || seen.has(alert.name)) return;
    const source = doc.positions[`/alerts/${i}`] ?? doc.source;
    seen.add(alert.name);
    resources.push({
      kind: 'AlertTemplate',
      account: doc.account,
      name: templateId(doc.name, alert.name),
      parent: doc.name,
      spec: templateSpec(alert),
      envRefs: rebaseEnvRefs(doc.envRefs, `/alerts/${i}`),
      source,
      context: { extends: base, pointer: `/spec/alerts/${i}` },
    });
  });
  return { resources, diagnostics: [] };
}

/**
 * What only live state shows about a base: that the account has it, and that it has templates.
 * A base that is the root or not predefined at all is reported by validation already.
 */
function checkBase(desired: DesiredResource, live: readonly LiveResource[], settings?: KindSettings): Diagnostic[] {
  const base = desired.spec.extends;
  if (typeof base !== 'string' || base === ROOT_PROFILE_ID || !isPredefined(base, predefinedPrefix(settings))) return [];
  const where = { ...desired.source, field: '/spec/extends' };
  const inAccount = (r: LiveResource) => r.account === desired.account;
  if (!live.some((r) => inAccount(r) && r.kind === 'AlertProfile' && r.name === base)) {
    const known = live
      .filter((r) => inAccount(r) && r.kind === 'AlertProfile' && r.managedByService && r.name !== ROOT_PROFILE_ID)
      .map((r) => r.name)
      .sort();
    return [
      {
        severity: 'error',
        code: 'unknown-base-profile',
        message: `AlertProfile "${desired.name}" extends "${base}", which account ${desired.account} does not have`,
        ...where,
        ...(known.length > 0 ? { hint: `predefined profiles: ${known.join(', ')}` } : {}),
      },
    ];
  }
  if (!live.some((r) => inAccount(r) && r.kind === 'AlertTemplate' && r.parent === base)) {
    return [
      {
        severity: 'error',
        code: 'base-profile-without-templates',
        message: `AlertProfile "${desired.name}" extends "${base}", which has no alert templates and cannot be extended`,
        ...where,
        hint: 'extend a predefined profile that has templates',
      },
    ];
  }
  return [];
}

export const AlertProfile: Kind = {
  kind: 'AlertProfile',
  order: 30,
  documentKind: 'AlertProfile',
  schema: SCHEMA_FILE,
  collection: PROFILES_COLLECTION,
  identifiers: ['/extends', '/alerts/*/name'],
  rootSettings: {
    [PREFIX_SETTING]: {
      type: 'string',
      minLength: 1,
      default: PREDEFINED_PROFILE_PREFIX,
      description:
        'Id prefix of the alert profiles the service predefines (mixed case may follow it): such profiles are never planned, pruned or exported, and custom profile ids may not use it.',
      examples: [PREDEFINED_PROFILE_PREFIX],
    },
  },
  fromDocument,
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return (await readProfiles(ctx)).map((p) => {
      const live: LiveResource = {
        kind: 'AlertProfile',
        account: ctx.account,
        name: p.id,
        id: p.id,
        spec: p.extends !== undefined ? { extends: p.extends } : {},
        // Kept for every profile: templates are checked against the keys of predefined ones.
        info: { fields: p.fields, descriptionKeys: p.descriptionKeys },
      };
      // The service's own profiles: never planned, never pruned, never exported as custom.
      if (isPredefined(p.id, predefinedPrefix(ctx.settings))) live.managedByService = true;
      return live;
    });
  },
  check: (desired, live, settings) => checkBase(desired, live, settings),
  createRequest(desired, children, ctx) {
    const alerts = children.map((c) => ({ name: templateNameOf(c), ...c.spec }));
    return request(ctx, 'POST', PROFILES_PATH, { alertProfileId: desired.name, extends: desired.spec.extends, alerts });
  },
  // The client chooses the id.
  createdId: (_body, desired) => desired.name,
  // Templates are planned on their own and `extends` is a replace: nothing else can change.
  updateRequests: () => [],
  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(PROFILES_COLLECTION, id)),
  documents: {
    schemas,
    check: checkProfileDocument,
  },
  hierarchy: {
    ownsChildren: true,
  },
  lifecycle: {
    // Every account has the predefined profiles, which policies name without declaring them.
    serviceDefaults: true,
  },
  compare: {
    // No endpoint changes a profile's base: a new base means a new profile.
    replaceOn: ['extends'],
  },
  rename: {
    inPlace: false,
    refusal: "an alert profile's name is its alertProfileId, which cannot be changed",
  },
  export: {
    toDocument(live, children) {
      if (live.managedByService) return null;
      const alerts = children.filter((c) => c.kind === 'AlertTemplate' && c.parent === live.name).map((c): JsonObject => ({ name: templateNameOf(c), ...c.spec }));
      return { kind: 'AlertProfile', name: live.name, spec: { extends: live.spec.extends ?? '', alerts } };
    },
  },
};
