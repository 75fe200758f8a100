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
  older?: boolean;
}

export interface TemplateRecord {
  name: string;
  eventName: string;
  description: string;
  subject: string;
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
  isDefaultBoolean: boolean;
  /** An older record: answered with `resourceName` and `guid` (and `props` when it has no query). */
  legacy?: boolean;
  createdTime: number;
  createdBy: string;
  updatedTime: number;
  updatedBy: string;
}

/** A report rule (api-facts.md "Report rules"). */
export interface ReportRuleRecord {
  mcGuid: string;
  type: string;
  intgGuidList: string[];
  filters: { name: string; description: string; enabled: number; severity: number[]; resourceGroups: string[] };
  reportNotificationTypes: Record<string, boolean>;
  createdOrUpdatedBy: string;
  createdOrUpdatedTime: number;
}

export interface ScopeData {
  alertChannels: IntegrationRecord[];
  cloudAccounts: IntegrationRecord[];
  containerRegistries: IntegrationRecord[];
  alertRules: RuleRecord[];
  alertProfiles: ProfileRecord[];
  agentAccessTokens: AgentTokenRecord[];
  auditLogs: AuditRecord[];
  /** Created with the account's default groups on first use (state files from before have none). */
  resourceGroups?: ResourceGroupRecord[];
  reportRules?: ReportRuleRecord[];
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
}
