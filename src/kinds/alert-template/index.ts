// Alert templates: the text of alerts, owned by a profile. No documents of their own (they come
// from an AlertProfile's `alerts`) and no export of their own (the profile exports them).

import type { Diagnostic } from '../../model/diagnostics.js';
import { apiPath, request } from '../common.js';
import { predefinedPrefix, ROOT_PROFILE_ID } from '../alert-profile/ids.js';
import {
  descriptionKeyNames,
  isPredefined,
  PROFILES_COLLECTION,
  readProfiles,
  splitTemplateId,
  TEMPLATE_MEMBERS,
  templateId,
  templateNameOf,
} from '../alert-profile/records.js';
import type { DesiredResource, LiveResource } from '../../model/resource.js';
import type { FetchContext, Kind, KindSettings } from '../types.js';
import type { JsonObject } from '../../model/json.js';

const TEMPLATES = 'AlertTemplates';
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** `{{KEY}}` placeholders of subject and description that the profile's descriptionKeys lack. */
function checkPlaceholders(desired: DesiredResource, live: readonly LiveResource[], settings?: KindSettings): Diagnostic[] {
  const profiles = live.filter((r) => r.kind === 'AlertProfile' && r.account === desired.account);
  // Keys are inherited from the base, so the base the document names is the truth even before the
  // profile exists (or while its base is being replaced); the live profile is the fallback.
  const base = desired.context?.extends;
  // A base that may not be extended is reported by validation; its keys say nothing here.
  if (typeof base === 'string' && (base === ROOT_PROFILE_ID || !isPredefined(base, predefinedPrefix(settings)))) return [];
  const source = profiles.find((p) => p.name === base) ?? profiles.find((p) => p.name === desired.parent);
  if (!source) return [];
  const allowed = descriptionKeyNames(source.info);
  const pointer = typeof desired.context?.pointer === 'string' ? desired.context.pointer : undefined;
  const diagnostics: Diagnostic[] = [];
  for (const member of ['subject', 'description'] as const) {
    const text = desired.spec[member];
    if (typeof text !== 'string') continue;
    const unknown = new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1].trim()).filter((key) => !allowed.includes(key)));
    for (const key of unknown) {
      diagnostics.push({
        severity: 'error',
        code: 'unknown-placeholder',
        message: `alert template "${templateNameOf(desired)}" of profile "${desired.parent}": {{${key}}} in ${member} is not a description key of profile ${source.name}`,
        ...desired.source,
        ...(pointer !== undefined ? { field: `${pointer}/${member}` } : {}),
        hint: allowed.length > 0 ? `allowed: ${allowed.map((k) => `{{${k}}}`).join(', ')}` : `profile ${source.name} offers no placeholders`,
      });
    }
  }
  return diagnostics;
}

/** `/AlertProfiles/{p}/AlertTemplates`, or `.../{t}` with a template name. */
function templatePath(profileId: string, ...templateName: [] | [string]): string {
  return apiPath(PROFILES_COLLECTION, profileId, TEMPLATES, ...templateName);
}

export const AlertTemplate: Kind = {
  kind: 'AlertTemplate',
  order: 40,
  documentKind: null,
  schema: null,
  // Same list call as AlertProfile: the templates are inside the profiles.
  collection: PROFILES_COLLECTION,
  fromDocument(doc) {
    return {
      resources: [],
      diagnostics: [
        {
          severity: 'error',
          code: 'unknown-kind',
          message: `"${doc.name}": AlertTemplate has no documents of its own`,
          ...doc.source,
          field: '/kind',
          hint: 'declare templates in the `alerts` of an AlertProfile document',
        },
      ],
    };
  },
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return (await readProfiles(ctx)).flatMap((p) =>
      p.alerts.map((a) => {
        const live: LiveResource = {
          kind: 'AlertTemplate',
          account: ctx.account,
          name: templateId(p.id, a.name),
          id: templateId(p.id, a.name),
          parent: p.id,
          spec: a.spec,
        };
        if (isPredefined(p.id, predefinedPrefix(ctx.settings))) live.managedByService = true;
        return live;
      }),
    );
  },
  check: checkPlaceholders,
  createRequest(desired, _children, ctx) {
    const profileId = desired.parent ?? splitTemplateId(desired.name)[0];
    return request(ctx, 'POST', templatePath(profileId), { name: templateNameOf(desired), ...desired.spec });
  },
  createdId: (_body, desired) => desired.name,
  updateRequests(id, desired, changed, ctx) {
    const body: JsonObject = {};
    for (const m of TEMPLATE_MEMBERS) if (changed.includes(m)) body[m] = desired.spec[m];
    if (Object.keys(body).length === 0) return [];
    const profileId = desired.parent ?? splitTemplateId(id)[0];
    return [request(ctx, 'PATCH', templatePath(profileId, templateNameOf({ name: id, parent: profileId })), body)];
  },
  deleteRequest(id, ctx) {
    const [profileId, name] = splitTemplateId(id);
    return request(ctx, 'DELETE', templatePath(profileId, name));
  },
  hierarchy: {
    declaredIn: 'alert templates have no document of their own: list them under an AlertProfile spec.alerts',
    parentKind: 'AlertProfile',
  },
};
