// The records the emulator keeps, as stored (and persisted). Responses are built from them per collection.

export interface IntegrationRecord {
  intgGuid: string;
  name: string;
  type: string;
  enabled: number;
  /** As written, secrets included (the service keeps them; responses mask them). */
  data: Record<string, unknown>;
  createdBy: string;
  createdTime: number;
  createdOrUpdatedBy: string;
  createdOrUpdatedTime: number;
  /** Issued by the service on create for the agentless scanner types (api-facts.md): `{serverToken, uri}`. */
  serverToken?: { serverToken: string; uri: string };
  /** Created with `X-Emulator-Spelling: older`: answered in the older spellings api-facts.md lists. */
  older?: boolean;
  /** Alert channels: epoch ms of the last successful test; 0 (or absent) when never tested. */
  lastSuccessfulTime?: number;
  /** Alert channels: epoch ms of the last test (successful or not). */
  lastTestTime?: number;
  /** Top-level members the emulator does not model, kept from a seeded record (or a carried write) and answered as given. */
  carried?: Record<string, unknown>;
}

export interface RuleFilters {
  name: string;
  description: string;
  enabled: number;
  resourceGroups: string[];
  eventCategory: string[];
  severity: number[];
  /** The newer filters (rules written since late 2023), present only where written. */
  category?: string[];
  subCategory?: string[];
  source?: string[];
}

export interface RuleRecord {
  mcGuid: string;
  type: string;
  intgGuidList: string[];
  filters: RuleFilters;
  createdOrUpdatedBy: string;
  createdOrUpdatedTime: number;
  /** The spelling the request gave the source filter in (`source` or `sources`); answered in it. */
  sourceSpelling?: 'source' | 'sources';
  /** Created with `X-Emulator-Spelling: older`: camelCase filter lists and a top-level `name`. */
  older?: boolean;  /** Top-level members of a seeded record the emulator does not model, answered as given. */
  carried?: Record<string, unknown>;
}

export interface TemplateRecord {
  name: string;
  eventName: string;
  description: string;
  subject: string;
}

/** A predefined alert profile: the emulator's constants (predefined-profiles.ts), or those an account was seeded with. */
export interface PredefinedProfile {
  alertProfileId: string;
  /** Absent on the root. */
  extends?: string;
  fields: { name: string }[];
  descriptionKeys: { name: string; spec: string }[];
  alerts: TemplateRecord[];
}

/** A custom alert profile; predefined ones are constants (predefined-profiles.ts). */
export interface ProfileRecord {
  alertProfileId: string;
  extends: string;
  alerts: TemplateRecord[];
}

export interface AgentTokenRecord {
  accessToken: string;
  createdTime: number;
  description: string;
  /** `props.os` (`linux` or `windows`), as public clients send it; absent when never given. */
  os?: string;
  tokenAlias: string;
  tokenEnabled: string;
  version: string;
}

export interface AuditRecord {
  accountName: string;
  createdTime: string;
  eventDescription: string;
  eventName: string;
  userAction: string;
  userName: string;
}

/** A resource group (api-facts.md "Resource groups"). */
export interface ResourceGroupRecord {
  resourceGroupGuid: string;
  name: string;
  resourceType: string;
  description: string;
  enabled: number;
  /** `{filters, expression}` as written; older records hold `props` instead. */
  query?: Record<string, unknown>;
  props?: Record<string, unknown>;
  /** `props` as JSON text, as some older records hold it (seeded so): answered as that text. */
  propsText?: string;
  isDefaultBoolean: boolean;
  /** An older record: answered with `resourceName` and `guid` (and `props` when it has no query). */
  legacy?: boolean;
  createdTime: number;
  createdBy: string;
  updatedTime: number;
  updatedBy: string;
  /** Top-level members of a seeded record the emulator does not model, answered as given. */
  carried?: Record<string, unknown>;
}

/** A report rule (api-facts.md "Report rules"). */
export interface ReportRuleRecord {
  mcGuid: string;
  type: string;
  intgGuidList: string[];
  filters: { name: string; description: string; enabled: number; severity: number[]; resourceGroups: string[] };
  reportNotificationTypes: Record<string, boolean>;
  createdOrUpdatedBy: string;
  createdOrUpdatedTime: number;  /** Top-level members of a seeded record the emulator does not model, answered as given. */
  carried?: Record<string, unknown>;
}

/** A LQL query (api-facts.md "Queries"): custom, or predefined (materialised per account on first use). */
export interface QueryRecord {
  queryId: string;
  /** Verbatim, whitespace included. */
  queryText: string;
  queryName?: string;
  description?: string;
  usageContext?: unknown;
  /** Legacy member: stored when written; a change on an existing query is refused. */
  evaluatorId?: string;
  owner: string;
  lastUpdateTime: number;
  lastUpdateUser: string;
  predefined: boolean;
  carried?: Record<string, unknown>;
}

export interface ConstraintField {
  fieldKey: string;
  dataType: string;
  multiValue: boolean;
}

/** A policy (api-facts.md "Policies"): custom, or predefined (materialised per account on first use). */
export interface PolicyRecord {
  policyId: string;
  policyType: string;
  /** Absent on Manual policies. */
  queryId?: string;
  title: string;
  description: string;
  remediation: string;
  /** Lower case. */
  severity: string;
  enabled: boolean;
  alertEnabled: boolean;
  alertProfile?: string;
  evalFrequency?: string;
  limit: number;
  tags: string[];
  owner: string;
  lastUpdateTime: number;
  lastUpdateUser: string;
  constraintFields: ConstraintField[];
  predefined: boolean;
  /** Predefined policies: infoLink, references, additionalInformation, evaluatorId. */
  info?: Record<string, unknown>;
  carried?: Record<string, unknown>;
}

export interface PolicyExceptionRecord {
  exceptionId: string;
  policyId: string;
  description: string;
  constraints: { fieldKey: string; fieldValues: unknown[] }[];
  lastUpdateTime: number;
  lastUpdateUser: string;
  carried?: Record<string, unknown>;
}

export interface VulnerabilityExceptionRecord {
  exceptionGuid: string;
  exceptionName: string;
  exceptionType: string;
  exceptionReason: string;
  state: number;
  description: string;
  createdBy: string;
  updatedBy: string;
  vulnerabilityCriteria: Record<string, unknown>;
  resourceScope?: Record<string, unknown>;
  expiryTime?: string;
  createdTime: number;
  updatedTime: number;
  carried?: Record<string, unknown>;
}

export interface DataExportRuleRecord {
  mcGuid: string;
  type: string;
  intgGuidList: string[];
  filters: { name: string; description: string; enabled: number; profileVersions?: string[] };
  createdOrUpdatedBy: string;
  createdOrUpdatedTime: number;
  carried?: Record<string, unknown>;
}

export interface ScopeData {
  alertChannels: IntegrationRecord[];
  cloudAccounts: IntegrationRecord[];
  containerRegistries: IntegrationRecord[];
  alertRules: RuleRecord[];
  alertProfiles: ProfileRecord[];
  /** Seeded from a list body (seedFromLists): the account's own predefined profiles, instead of the emulator's. */
  predefinedProfiles?: PredefinedProfile[];
  agentAccessTokens: AgentTokenRecord[];
  auditLogs: AuditRecord[];
  /** Created with the account's default groups on first use (state files from before have none). */
  resourceGroups?: ResourceGroupRecord[];
  reportRules?: ReportRuleRecord[];
  /** Custom and predefined queries; the predefined ones are added on first use. */
  queries?: QueryRecord[];
  /** Custom and predefined policies; the predefined ones are added on first use. */
  policies?: PolicyRecord[];
  /** The n of the last `<tenant>-default-<n>` policy id. */
  policyCounter?: number;
  policyExceptions?: PolicyExceptionRecord[];
  vulnerabilityExceptions?: VulnerabilityExceptionRecord[];
  dataExportRules?: DataExportRuleRecord[];
}

export const SCOPE_COLLECTIONS = [
  'alertChannels',
  'cloudAccounts',
  'containerRegistries',
  'alertRules',
  'alertProfiles',
  'agentAccessTokens',
  'auditLogs',
] as const;

export interface StateDocument {
  formatVersion: 1;
  /** Keyed by lower-case account name. Accounts no longer configured are kept, not dropped. */
  accounts: Record<string, ScopeData>;
  org: ScopeData;
  counters: { writes: number };
  /**
   * The channels told to fail (`failChannels`, `--fail-channel`) when the emulator last ran, with
   * the time each started failing: written for the reader; the options decide at each start.
   */
  failingChannels?: { name: string; since: number }[];
}
