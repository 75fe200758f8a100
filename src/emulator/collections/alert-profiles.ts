// /api/v2/AlertProfiles and their AlertTemplates. Predefined profiles (<prefix>…, SVC_ by default)
// exist in every account and are read-only (403); custom profiles extend a predefined one that has
// templates, inherit its fields and descriptionKeys, and list only their own templates.

import { HttpError, notFound, objectBody, type Handler, type RequestContext } from '../http.js';
import type { ProfileRecord, ScopeData, TemplateRecord } from '../model.js';
import { predefinedProfiles, type PredefinedProfile } from '../predefined-profiles.js';
import { PROFILE_CREATE, PROFILE_PATCH, TEMPLATE, TEMPLATE_PATCH } from '../request-schemas.js';
import type { Route } from '../router.js';
import { PREDEFINED_PROFILE_PREFIX, ROOT_PROFILE_NAME } from '../service-facts.js';
import { check, invalidData } from '../validation.js';

type ProfileView = Omit<PredefinedProfile, 'extends'> & { extends?: string };

/** The routes of an account whose predefined profiles carry `prefix` (the emulator's `predefinedPrefix`). */
export function alertProfileRoutes(prefix: string = PREDEFINED_PROFILE_PREFIX): Route[] {
  const predefined = predefinedProfiles(prefix);
  const rootId = prefix + ROOT_PROFILE_NAME;
  // An account seeded from list bodies holds the predefined profiles it was given (seeding.ts).
  const predefinedOf = (scope: ScopeData): readonly PredefinedProfile[] => scope.predefinedProfiles ?? predefined;
  const predefinedProfile = (scope: ScopeData, id: string): PredefinedProfile | undefined => predefinedOf(scope).find((p) => p.alertProfileId === id);

  function customView(scope: ScopeData, p: ProfileRecord): ProfileView {
    const parent = predefinedProfile(scope, p.extends);
    return {
      alertProfileId: p.alertProfileId,
      extends: p.extends,
      fields: parent ? parent.fields.map((f) => ({ ...f })) : [],
      descriptionKeys: parent ? parent.descriptionKeys.map((k) => ({ ...k })) : [],
      alerts: p.alerts.map((t) => ({ ...t })),
    };
  }

  function predefinedView(p: PredefinedProfile): ProfileView {
    return JSON.parse(JSON.stringify(p)) as ProfileView;
  }

  function allViews(ctx: RequestContext): ProfileView[] {
    return [...predefinedOf(ctx.scope).map(predefinedView), ...ctx.scope.alertProfiles.map((p) => customView(ctx.scope, p))];
  }

  /** The custom profile in the path; 403 for a predefined one, 404 for an unknown one. */
  function findCustom(ctx: RequestContext): ProfileRecord {
    const id = ctx.params.alertProfileId;
    if (predefinedProfile(ctx.scope, id) !== undefined) throw new HttpError(403, `Alert profile ${id} is predefined and cannot be changed or deleted`);
    const p = ctx.scope.alertProfiles.find((x) => x.alertProfileId === id);
    if (p === undefined) throw notFound();
    return p;
  }

  const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

  /** `{{KEY}}` placeholders must be among the profile's descriptionKeys. */
  function placeholderErrors(t: Partial<TemplateRecord>, allowed: string[], at: string): string[] {
    const errors: string[] = [];
    for (const member of ['description', 'subject'] as const) {
      for (const m of (t[member] ?? '').matchAll(PLACEHOLDER)) {
        if (!allowed.includes(m[1])) {
          errors.push(`${at}${member}: unknown placeholder {{${m[1]}}}; the profile's descriptionKeys are ${allowed.join(', ')}`);
        }
      }
    }
    return errors;
  }

  function keyNames(scope: ScopeData, parentId: string): string[] {
    return (predefinedProfile(scope, parentId)?.descriptionKeys ?? []).map((k) => k.name);
  }

  function checkTemplates(scope: ScopeData, alerts: TemplateRecord[], parentId: string): TemplateRecord[] {
    const allowed = keyNames(scope, parentId);
    const seen = new Set<string>();
    const errors: string[] = [];
    alerts.forEach((t, i) => {
      if (seen.has(t.name)) errors.push(`alerts/${i}/name: duplicate template name ${t.name}`);
      seen.add(t.name);
      errors.push(...placeholderErrors(t, allowed, `alerts/${i}/`));
    });
    if (errors.length > 0) throw invalidData(errors);
    return alerts.map(({ name, eventName, description, subject }) => ({ name, eventName, description, subject }));
  }

  const written = (scope: ScopeData, p: ProfileRecord) => ({ data: [customView(scope, p)] });

  const list: Handler = (ctx) => ({ status: 200, body: { data: allViews(ctx) } });

  const create: Handler = (ctx) => {
    const body = objectBody(ctx);
    check(PROFILE_CREATE, body);
    const id = body.alertProfileId as string;
    const parentId = body.extends as string;
    if (id.startsWith(prefix)) {
      throw invalidData([`alertProfileId: ${prefix} is reserved for predefined profiles`]);
    }
    const parent = predefinedProfile(ctx.scope, parentId);
    if (parent === undefined) throw invalidData([`extends: ${parentId} is not a predefined alert profile`]);
    if (parentId === rootId || parent.alerts.length === 0) {
      throw invalidData([`extends: ${parentId} has no alert templates and cannot be extended`]);
    }
    if (ctx.scope.alertProfiles.some((p) => p.alertProfileId === id)) throw new HttpError(409, `Alert profile ${id} already exists`);
    const p: ProfileRecord = { alertProfileId: id, extends: parentId, alerts: checkTemplates(ctx.scope, body.alerts as TemplateRecord[], parentId) };
    ctx.scope.alertProfiles.push(p);
    ctx.committed('Create alert profile', `Created alert profile ${id}`);
    return { status: 201, body: written(ctx.scope, p) };
  };

  const get: Handler = (ctx) => {
    const id = ctx.params.alertProfileId;
    const pre = predefinedProfile(ctx.scope, id);
    if (pre !== undefined) return { status: 200, body: { data: predefinedView(pre) } };
    const p = ctx.scope.alertProfiles.find((x) => x.alertProfileId === id);
    if (p === undefined) throw notFound();
    return { status: 200, body: { data: customView(ctx.scope, p) } };
  };

  /** PATCH replaces the profile's own templates; inherited members may be echoed back but not changed. */
  const patch: Handler = (ctx) => {
    const p = findCustom(ctx);
    const body = objectBody(ctx);
    check(PROFILE_PATCH, body);
    const view = customView(ctx.scope, p);
    const errors = (['extends', 'fields', 'descriptionKeys'] as const)
      .filter((k) => body[k] !== undefined && JSON.stringify(body[k]) !== JSON.stringify(view[k]))
      .map((k) => `${k}: cannot be changed`);
    if (errors.length > 0) throw invalidData(errors);
    p.alerts = checkTemplates(ctx.scope, body.alerts as TemplateRecord[], p.extends);
    ctx.committed('Update alert profile', `Updated alert profile ${p.alertProfileId}`);
    return { status: 200, body: written(ctx.scope, p) };
  };

  const remove: Handler = (ctx) => {
    const p = findCustom(ctx);
    ctx.scope.alertProfiles.splice(ctx.scope.alertProfiles.indexOf(p), 1);
    ctx.committed('Delete alert profile', `Deleted alert profile ${p.alertProfileId}`);
    return { status: 204 };
  };

  const createTemplate: Handler = (ctx) => {
    const p = findCustom(ctx);
    const body = objectBody(ctx);
    check(TEMPLATE, body);
    const t = body as unknown as TemplateRecord;
    if (p.alerts.some((x) => x.name === t.name)) {
      throw new HttpError(409, `Alert template ${t.name} already exists in alert profile ${p.alertProfileId}`);
    }
    const errors = placeholderErrors(t, keyNames(ctx.scope, p.extends), '');
    if (errors.length > 0) throw invalidData(errors);
    p.alerts.push({ name: t.name, eventName: t.eventName, description: t.description, subject: t.subject });
    ctx.committed('Create alert template', `Created alert template ${p.alertProfileId}.${t.name}`);
    return { status: 200, body: written(ctx.scope, p) };
  };

  function findTemplate(ctx: RequestContext, p: ProfileRecord): TemplateRecord {
    const t = p.alerts.find((x) => x.name === ctx.params.alertTemplateName);
    if (t === undefined) throw notFound();
    return t;
  }

  const patchTemplate: Handler = (ctx) => {
    const p = findCustom(ctx);
    const t = findTemplate(ctx, p);
    const body = objectBody(ctx);
    check(TEMPLATE_PATCH, body);
    const next: TemplateRecord = {
      name: t.name,
      eventName: (body.eventName as string | undefined) ?? t.eventName,
      description: (body.description as string | undefined) ?? t.description,
      subject: (body.subject as string | undefined) ?? t.subject,
    };
    const errors = placeholderErrors(next, keyNames(ctx.scope, p.extends), '');
    if (errors.length > 0) throw invalidData(errors);
    Object.assign(t, next);
    ctx.committed('Update alert template', `Updated alert template ${p.alertProfileId}.${t.name}`);
    return { status: 200, body: written(ctx.scope, p) };
  };

  const removeTemplate: Handler = (ctx) => {
    const p = findCustom(ctx);
    const t = findTemplate(ctx, p);
    p.alerts.splice(p.alerts.indexOf(t), 1);
    ctx.committed('Delete alert template', `Deleted alert template ${p.alertProfileId}.${t.name}`);
    return { status: 204 };
  };

  /** Profile writes answer `{data: [profile]}` (seed: an array of profiles). */
  const LIST = { kind: 'list', type: 'AlertProfiles' } as const;

  return [
    {
      pattern: 'AlertProfiles',
      methods: { GET: list, POST: create },
      docs: {
        GET: { summary: 'List alert profiles (predefined and custom)', response: LIST },
        POST: { summary: 'Create a custom alert profile', request: PROFILE_CREATE, status: 201, response: LIST },
      },
    },
    {
      pattern: 'AlertProfiles/:alertProfileId',
      methods: { GET: get, PATCH: patch, DELETE: remove },
      docs: {
        GET: { summary: 'Read one alert profile', response: { kind: 'one', type: 'AlertProfiles' } },
        PATCH: { summary: "Replace a custom profile's alerts", request: PROFILE_PATCH, response: LIST },
        DELETE: { summary: 'Delete a custom alert profile', status: 204, response: { kind: 'none' } },
      },
    },
    {
      pattern: 'AlertProfiles/:alertProfileId/AlertTemplates',
      methods: { POST: createTemplate },
      docs: { POST: { summary: 'Add an alert template to a custom profile', request: TEMPLATE, response: LIST } },
    },
    {
      pattern: 'AlertProfiles/:alertProfileId/AlertTemplates/:alertTemplateName',
      methods: { PATCH: patchTemplate, DELETE: removeTemplate },
      docs: {
        PATCH: { summary: 'Change an alert template', request: TEMPLATE_PATCH, response: LIST },
        DELETE: { summary: 'Delete an alert template', status: 204, response: { kind: 'none' } },
      },
    },
  ];
}
