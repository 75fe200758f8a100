// The record types the emulator serves, as `{name, type}` field lists (seed 000, "Resources and
// their fields"). One table for GET /api/v2/schemas/{type} and the response schemas of GET /api/v2/docs.

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
export interface Field {
  name: string;
  type: FieldType;
}

const f = (spec: string): Field[] =>
  spec.split(' ').map((pair) => {
    const [name, type] = pair.split(':');
    return { name, type: type as FieldType };
  });

const INTEGRATION = f(
  'name:string type:string enabled:number data:object intgGuid:string createdOrUpdatedBy:string createdOrUpdatedTime:string isOrg:number props:object state:object',
);

export const RECORD_TYPES: Readonly<Record<string, Field[]>> = {
  AgentAccessTokens: f('accessToken:string createdTime:string props:object tokenAlias:string tokenEnabled:string version:string'),
  AlertChannels: INTEGRATION,
  AlertProfiles: f('alertProfileId:string extends:string fields:array descriptionKeys:array alerts:array'),
  AlertRules: f('mcGuid:string type:string intgGuidList:array filters:object'),
  // The seed's schema listing says integer for createdTime; its samples (and the emulator) give an ISO string.
  AuditLogs: f('accountName:string createdTime:integer eventDescription:string eventName:string userAction:string userName:string'),
  ChangedFiles: f('startTime:string endTime:string mid:integer filePath:string filedataHash:string mtime:string size:integer threatInfo:string'),
  CloudAccounts: INTEGRATION,
  CloudActivities: f('startTime:string endTime:string eventType:string eventId:integer eventModel:string eventActor:string eventMap:object'),
  ComplianceEvaluations: f(
    'account:object evalType:string id:string reason:string recommendation:string region:string reportTime:string resource:string section:string severity:string status:string',
  ),
  ContainerRegistries: INTEGRATION,
  ReportRules: f('mcGuid:string type:string intgGuidList:array filters:object reportNotificationTypes:object'),
  ResourceGroups: f(
    'resourceGroupGuid:string name:string resourceType:string description:string enabled:number query:object isDefaultBoolean:boolean createdTime:string createdBy:string updatedTime:string updatedBy:string',
  ),
  Queries: f('queryId:string queryText:string queryName:string description:string usageContext:object owner:string lastUpdateTime:string lastUpdateUser:string resultSchema:array providers:array usedByPolicies:array'),
  Policies: f(
    'policyId:string policyType:string queryId:string queryText:string title:string description:string remediation:string severity:string enabled:boolean alertEnabled:boolean alertProfile:string evalFrequency:string limit:integer tags:array owner:string lastUpdateTime:string lastUpdateUser:string exceptionConfiguration:object',
  ),
  Exceptions: f('exceptionId:string description:string constraints:array lastUpdateTime:string lastUpdateUser:string'),
  VulnerabilityExceptions: f(
    'exceptionGuid:string exceptionName:string exceptionType:string exceptionReason:string state:integer props:object vulnerabilityCriteria:object resourceScope:object expiryTime:string createdTime:string updatedTime:string envGuid:string',
  ),
  DataExportRules: f('mcGuid:string type:string intgGuidList:array filters:object'),
  DNSs: f('createdTime:string mid:integer fqdn:string hostIpAddr:string ttl:integer dnsServerIp:string'),
  UserLogins: f('createdTime:string activityTime:string mid:integer activityType:string username:string uid:integer sourceIpAddr:string'),
};
