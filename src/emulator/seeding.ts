// Seeding an account from list bodies as a client fetched them (EmulatorOptions.seedFromLists; issue
// 35's rehearsal): each record becomes the emulator's own, so that later writes find it, and what it
// carries beyond the emulator's model (unknown members, unknown types, other spellings) is kept and
// answered as given. Nothing is checked: a live record is what it is. A list path the emulator does
// not serve is listed as given (`seed`).

import { alertChannels } from './collections/alert-channels.js';
import { cloudAccounts } from './collections/cloud-accounts.js';
import { containerRegistries } from './collections/container-registries.js';
import { INTEGRATION_MEMBERS, type IntegrationCollection } from './collections/integrations.js';
import { globalPolicyPrefix } from './predefined-policies.js';
import { predefinedPolicies, predefinedQueries } from './predefined-policies.js';
import type {
  ConstraintField,
  IntegrationRecord,
  PolicyRecord,
  QueryRecord,
  ResourceGroupRecord,
  RuleRecord,
  ScopeData,
  TemplateRecord,
} from './model.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' && v !== '' ? [v] : []);
const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number).filter((n) => Number.isFinite(n)) : []);
/** Epoch ms from a number, a numeric string or an ISO time; 0 when it is none (live timestamps are not always well formed). */
function timeOf(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? 0 : t;
}
/** The members of `r` not in `known`, or undefined when none. */
function carriedOf(r: Json, known: readonly string[]): Json | undefined {
  const out = Object.fromEntries(Object.entries(r).filter(([k]) => !known.includes(k)));
  return Object.keys(out).length > 0 ? structuredClone(out) : undefined;
}
const withCarried = <T extends object>(record: T, carried: Json | undefined): T => (carried === undefined ? record : { ...record, carried });

/** The records of a list body (`{data: [...]}`) or of a bare array; undefined for anything else. */
export function recordsOf(body: unknown): Json[] | undefined {
  const list = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.data) ? body.data : undefined;
  return list?.filter(isObject).map((r) => structuredClone(r));
}

/** What a seeded record holds for a write-only secret it was listed without: never answered (responses mask the member). */
export const HELD_SECRET = '(held by the service; listed masked)';

/**
 * The write-only secrets a listed record shows masked (left out, or ""): the service holds them all
 * the same, so the seeded record does too (HELD_SECRET), and a later write that leaves them alone
 * (`{enabled: 0}`) is checked as the service would check it, not refused for a secret it has.
 */
function holdMasked(record: IntegrationRecord, collection: IntegrationCollection): IntegrationRecord {
  for (const member of collection.sensitive(record)) {
    if (member.shown === 'clear') continue;
    const parts = member.path.split('.');
    let parent: Json | undefined = record.data;
    for (const p of parts.slice(0, -1)) parent = parent !== undefined && isObject(parent[p]) ? parent[p] : undefined;
    const last = parts[parts.length - 1];
    if (parent !== undefined && (parent[last] === undefined || parent[last] === '')) parent[last] = HELD_SECRET;
  }
  return record;
}

function integration(r: Json): IntegrationRecord {
  const props = isObject(r.props) ? r.props : {};
  const state = isObject(r.state) ? r.state : {};
  const updated = timeOf(r.createdOrUpdatedTime);
  // props and state are rebuilt by the emulator; what props carried besides its own members is kept.
  const carried = carriedOf(r, INTEGRATION_MEMBERS) ?? {};
  const extraProps = carriedOf(props, ['createdBy', 'createdTime', 'updatedBy']);
  if (extraProps !== undefined) carried.props = extraProps;
  return withCarried(
    {
      intgGuid: str(r.intgGuid),
      name: str(r.name),
      type: str(r.type),
      enabled: r.enabled === 0 || r.enabled === false ? 0 : 1,
      data: isObject(r.data) ? r.data : {},
      createdBy: str(props.createdBy, str(r.createdOrUpdatedBy)),
      createdTime: timeOf(props.createdTime) || updated,
      createdOrUpdatedBy: str(r.createdOrUpdatedBy),
      createdOrUpdatedTime: updated,
      lastSuccessfulTime: timeOf(state.lastSuccessfulTime),
      // The token the service issued: kept as it was (the emulator issues none to a seeded record).
      ...(isObject(r.serverToken) ? { serverToken: structuredClone(r.serverToken) as IntegrationRecord['serverToken'] } : {}),
    },
    Object.keys(carried).length > 0 ? carried : undefined,
  );
}

function alertRule(r: Json): RuleRecord {
  const f = isObject(r.filters) ? r.filters : {};
  const older = f.resourceGroups !== undefined || f.eventCategory !== undefined || r.name !== undefined;
  const rule: RuleRecord = {
    mcGuid: str(r.mcGuid),
    type: str(r.type, 'Event'),
    intgGuidList: strings(r.intgGuidList),
    filters: {
      name: str(f.name, str(r.name)),
      description: str(f.description),
      enabled: f.enabled === 0 ? 0 : 1,
      resourceGroups: strings(f.resourcegroups ?? f.resourceGroups),
      eventCategory: strings(f.eventcategory ?? f.eventCategory),
      severity: numbers(f.severity),
      ...(f.category !== undefined ? { category: strings(f.category) } : {}),
      ...(f.subCategory !== undefined ? { subCategory: strings(f.subCategory) } : {}),
      ...(f.source !== undefined || f.sources !== undefined ? { source: strings(f.source ?? f.sources) } : {}),
    },
    createdOrUpdatedBy: str(f.createdOrUpdatedBy),
    createdOrUpdatedTime: timeOf(f.createdOrUpdatedTime),
    ...(f.sources !== undefined ? { sourceSpelling: 'sources' as const } : {}),
    ...(older ? { older: true } : {}),
  };
  return withCarried(rule, carriedOf(r, ['mcGuid', 'type', 'name', 'intgGuidList', 'filters']));
}

function resourceGroup(r: Json): ResourceGroupRecord {
  const legacy = r.resourceName !== undefined || r.guid !== undefined;
  const props = typeof r.props === 'string' ? safeJson(r.props) : r.props;
  return withCarried({
    resourceGroupGuid: str(r.resourceGroupGuid, str(r.guid)),
    name: str(r.name, str(r.resourceName)),
    resourceType: str(r.resourceType),
    description: str(r.description),
    enabled: r.enabled === 0 ? 0 : 1,
    ...(isObject(r.query) ? { query: r.query } : {}),
    ...(!isObject(r.query) && isObject(props) ? { props } : {}),
    // The real service answered some older groups' props as JSON text: answered as that text again.
    ...(!isObject(r.query) && typeof r.props === 'string' ? { propsText: r.props } : {}),
    isDefaultBoolean: r.isDefaultBoolean === true,
    ...(legacy ? { legacy: true } : {}),
    createdTime: timeOf(r.createdTime),
    createdBy: str(r.createdBy),
    updatedTime: timeOf(r.updatedTime),
    updatedBy: str(r.updatedBy),
  }, carriedOf(r, RESOURCE_GROUP_MEMBERS));
}

const RESOURCE_GROUP_MEMBERS = [
  'resourceGroupGuid', 'guid', 'name', 'resourceName', 'resourceType', 'description', 'enabled', 'query', 'props', 'isDefaultBoolean', 'createdTime', 'createdBy', 'updatedTime', 'updatedBy',
];

function templates(profile: Json): TemplateRecord[] {
  return (Array.isArray(profile.alerts) ? profile.alerts : [])
    .filter(isObject)
    .map((t) => ({ name: str(t.name), eventName: str(t.eventName), description: str(t.description), subject: str(t.subject) }));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

const QUERY_MEMBERS = ['queryId', 'queryText', 'queryName', 'description', 'usageContext', 'evaluatorId', 'owner', 'lastUpdateTime', 'lastUpdateUser', 'resultSchema', 'providers', 'usedByPolicies'];
const POLICY_MEMBERS = [
  'policyId', 'policyType', 'queryId', 'queryText', 'title', 'description', 'remediation', 'severity', 'enabled', 'alertEnabled', 'alertProfile',
  'evalFrequency', 'limit', 'tags', 'owner', 'lastUpdateTime', 'lastUpdateUser', 'exceptionConfiguration', 'infoLink', 'references', 'additionalInformation', 'evaluatorId',
];

function query(r: Json, prefix: string): QueryRecord {
  const id = str(r.queryId);
  return withCarried(
    {
      queryId: id,
      queryText: str(r.queryText),
      ...(typeof r.queryName === 'string' ? { queryName: r.queryName } : {}),
      ...(typeof r.description === 'string' ? { description: r.description } : {}),
      ...(r.usageContext !== undefined ? { usageContext: r.usageContext } : {}),
      ...(typeof r.evaluatorId === 'string' ? { evaluatorId: r.evaluatorId } : {}),
      owner: str(r.owner),
      lastUpdateTime: timeOf(r.lastUpdateTime),
      lastUpdateUser: str(r.lastUpdateUser),
      predefined: id.startsWith(prefix),
    },
    carriedOf(r, QUERY_MEMBERS),
  );
}

function policy(r: Json, vendor: string): PolicyRecord {
  const id = str(r.policyId);
  const config = isObject(r.exceptionConfiguration) && Array.isArray(r.exceptionConfiguration.constraintFields) ? r.exceptionConfiguration.constraintFields : [];
  const info = Object.fromEntries(['infoLink', 'references', 'additionalInformation', 'evaluatorId'].filter((k) => r[k] !== undefined).map((k) => [k, r[k]]));
  return withCarried(
    {
      policyId: id,
      policyType: str(r.policyType, 'Violation'),
      ...(typeof r.queryId === 'string' && r.queryId !== '' ? { queryId: r.queryId } : {}),
      title: str(r.title),
      description: str(r.description),
      remediation: str(r.remediation),
      severity: str(r.severity).toLowerCase(),
      enabled: r.enabled !== false,
      alertEnabled: r.alertEnabled !== false,
      ...(typeof r.alertProfile === 'string' ? { alertProfile: r.alertProfile } : {}),
      ...(typeof r.evalFrequency === 'string' ? { evalFrequency: r.evalFrequency } : {}),
      limit: typeof r.limit === 'number' ? r.limit : 1000,
      tags: strings(r.tags),
      owner: str(r.owner),
      lastUpdateTime: timeOf(r.lastUpdateTime),
      lastUpdateUser: str(r.lastUpdateUser),
      constraintFields: config.filter(isObject).map((f) => ({ fieldKey: str(f.fieldKey), dataType: str(f.dataType, 'String'), multiValue: f.multiValue !== false }) as ConstraintField),
      predefined: id.startsWith(globalPolicyPrefix(vendor)) || r.owner === vendor,
      ...(Object.keys(info).length > 0 ? { info } : {}),
    },
    carriedOf(r, POLICY_MEMBERS),
  );
}

const INTEGRATIONS = { AlertChannels: alertChannels, CloudAccounts: cloudAccounts, ContainerRegistries: containerRegistries } as const;

export interface SeedTarget {
  prefix: string;
  vendor: string;
  /** Keeps records of a list path the emulator does not serve (listed as given). */
  passthrough(path: string, records: Json[]): void;
}

/**
 * Fills `scope` from `lists`: list path as fetched (`AlertChannels`, `Exceptions?policyId=P`) → list
 * body (`{data: [...]}`) or its records. A collection seeded replaces what the scope held; the
 * predefined queries and policies come from the lists when given, from the emulator's table otherwise.
 */
export function seedScope(scope: ScopeData, lists: Readonly<Record<string, unknown>>, target: SeedTarget): void {
  const exceptionLists: [string, Json[]][] = [];
  for (const [path, body] of Object.entries(lists)) {
    const records = recordsOf(body);
    if (records === undefined) throw new Error(`emulator: seedFromLists: ${path} is neither a list body {data: [...]} nor an array`);
    const [collection, search] = path.split('?');
    switch (collection) {
      case 'AlertChannels':
      case 'CloudAccounts':
      case 'ContainerRegistries':
        scope[INTEGRATIONS[collection].key] = records.map((r) => holdMasked(integration(r), INTEGRATIONS[collection]));
        break;
      case 'AlertRules':
        scope.alertRules = records.map(alertRule);
        break;
      case 'AlertProfiles': {
        // Profiles with the prefix are the service's: they replace the emulator's table for this account.
        const isPredefined = (r: Json) => str(r.alertProfileId).startsWith(target.prefix);
        scope.predefinedProfiles = records.filter(isPredefined).map((r) => ({
          alertProfileId: str(r.alertProfileId),
          ...(typeof r.extends === 'string' && r.extends !== '' ? { extends: r.extends } : {}),
          fields: (Array.isArray(r.fields) ? r.fields : []).filter(isObject).map((f) => ({ name: str(f.name) })),
          descriptionKeys: (Array.isArray(r.descriptionKeys) ? r.descriptionKeys : []).filter(isObject).map((k) => ({ name: str(k.name), spec: str(k.spec) })),
          alerts: templates(r),
        }));
        scope.alertProfiles = records.filter((r) => !isPredefined(r)).map((r) => ({ alertProfileId: str(r.alertProfileId), extends: str(r.extends), alerts: templates(r) }));
        break;
      }
      case 'AgentAccessTokens':
        scope.agentAccessTokens = records.map((r) => {
          const props = isObject(r.props) ? r.props : {};
          return {
            accessToken: str(r.accessToken),
            createdTime: timeOf(r.createdTime),
            description: str(props.description),
            ...(typeof props.os === 'string' ? { os: props.os } : {}),
            tokenAlias: str(r.tokenAlias),
            tokenEnabled: str(r.tokenEnabled, '1'),
            version: str(r.version),
          };
        });
        break;
      case 'ResourceGroups':
        scope.resourceGroups = records.map(resourceGroup);
        break;
      case 'ReportRules':
        scope.reportRules = records.map((r) => {
          const f = isObject(r.filters) ? r.filters : {};
          return withCarried({
            mcGuid: str(r.mcGuid),
            type: str(r.type, 'Report'),
            intgGuidList: strings(r.intgGuidList),
            filters: { name: str(f.name), description: str(f.description), enabled: f.enabled === 0 ? 0 : 1, severity: numbers(f.severity), resourceGroups: strings(f.resourceGroups) },
            reportNotificationTypes: Object.fromEntries(Object.entries(isObject(r.reportNotificationTypes) ? r.reportNotificationTypes : {}).map(([k, v]) => [k, v === true])),
            createdOrUpdatedBy: str(f.createdOrUpdatedBy),
            createdOrUpdatedTime: timeOf(f.createdOrUpdatedTime),
          }, carriedOf(r, ['mcGuid', 'type', 'intgGuidList', 'filters', 'reportNotificationTypes']));
        });
        break;
      case 'Queries':
        scope.queries = records.map((r) => query(r, target.prefix));
        break;
      case 'Policies':
        scope.policies = records.map((r) => policy(r, target.vendor));
        break;
      case 'Exceptions':
        exceptionLists.push([new URLSearchParams(search ?? '').get('policyId') ?? '', records]);
        break;
      case 'VulnerabilityExceptions':
        scope.vulnerabilityExceptions = records.map((r) => {
          const props = isObject(r.props) ? r.props : {};
          return withCarried(
            {
              exceptionGuid: str(r.exceptionGuid),
              exceptionName: str(r.exceptionName),
              exceptionType: str(r.exceptionType),
              exceptionReason: str(r.exceptionReason),
              state: r.state === 0 ? 0 : 1,
              description: str(props.description),
              createdBy: str(props.createdBy),
              updatedBy: str(props.updatedBy),
              vulnerabilityCriteria: isObject(r.vulnerabilityCriteria) ? r.vulnerabilityCriteria : {},
              ...(isObject(r.resourceScope) ? { resourceScope: r.resourceScope } : {}),
              ...(typeof r.expiryTime === 'string' ? { expiryTime: r.expiryTime } : {}),
              createdTime: timeOf(r.createdTime),
              updatedTime: timeOf(r.updatedTime),
            },
            carriedOf(r, ['exceptionGuid', 'exceptionName', 'exceptionType', 'exceptionReason', 'state', 'props', 'vulnerabilityCriteria', 'resourceScope', 'expiryTime', 'createdTime', 'updatedTime', 'envGuid']),
          );
        });
        break;
      case 'DataExportRules':
        scope.dataExportRules = records.map((r) => {
          const f = isObject(r.filters) ? r.filters : {};
          return withCarried(
            {
              mcGuid: str(r.mcGuid),
              type: str(r.type, 'Dataexport'),
              intgGuidList: strings(r.intgGuidList),
              filters: { name: str(f.name), description: str(f.description), enabled: f.enabled === 0 ? 0 : 1, ...(Array.isArray(f.profileVersions) ? { profileVersions: strings(f.profileVersions) } : {}) },
              createdOrUpdatedBy: str(f.createdOrUpdatedBy),
              createdOrUpdatedTime: timeOf(f.createdOrUpdatedTime),
            },
            carriedOf(r, ['mcGuid', 'type', 'intgGuidList', 'filters']),
          );
        });
        break;
      default:
        target.passthrough(path, records);
    }
  }
  // Exceptions belong to a policy: seeded after the policies, whichever order the lists came in.
  if (exceptionLists.length > 0) {
    scope.queries ??= predefinedQueries(target.prefix, target.vendor);
    scope.policies ??= predefinedPolicies(target.prefix, target.vendor);
    scope.policyExceptions = exceptionLists.flatMap(([policyId, records]) =>
      records.map((r) =>
        withCarried(
          {
            exceptionId: str(r.exceptionId),
            policyId,
            description: str(r.description),
            constraints: (Array.isArray(r.constraints) ? r.constraints : []).filter(isObject).map((c) => ({ fieldKey: str(c.fieldKey), fieldValues: Array.isArray(c.fieldValues) ? c.fieldValues : [] })),
            lastUpdateTime: timeOf(r.lastUpdateTime),
            lastUpdateUser: str(r.lastUpdateUser),
          },
          carriedOf(r, ['exceptionId', 'description', 'constraints', 'lastUpdateTime', 'lastUpdateUser']),
        ),
      ),
    );
  }
}

/**
 * The vendor prefix the seeded alert profiles show (`LW_` on the real service), undefined when they
 * show none: the predefined profiles descend from one root (the profile that extends nothing, or the
 * parent the list leaves out); the root's id up to its first `_` is the prefix.
 */
export function seededPrefix(lists: Readonly<Record<string, Readonly<Record<string, unknown>>>>): string | undefined {
  for (const account of Object.values(lists)) {
    const profiles = recordsOf(account.AlertProfiles) ?? [];
    const ids = new Set(profiles.map((p) => str(p.alertProfileId)));
    const parents = profiles.map((p) => str(p.extends)).filter((e) => e !== '');
    const roots = [...parents.filter((p) => !ids.has(p)), ...profiles.filter((p) => str(p.extends) === '' && parents.includes(str(p.alertProfileId))).map((p) => str(p.alertProfileId))];
    const prefix = roots.map((r) => /^[A-Za-z][A-Za-z0-9]*_/.exec(r)?.[0]).find((p) => p !== undefined);
    if (prefix !== undefined) return prefix;
  }
  return undefined;
}
