// The reports a report rule routes, as the service spells them in `reportNotificationTypes`
// (api-facts.md "Report rules"). An open set: the service adds reports without notice, so a name
// not listed here is carried with a warning, and only one this close to a listed name is an error.

export const REPORTS = [
  'agentEvents',
  'platformEvents',
  'awsCloudtrailEvents',
  'awsComplianceEvents',
  'azureComplianceEvents',
  'azureActivityLogEvents',
  'gcpAuditTrailEvents',
  'gcpComplianceEvents',
  'openShiftCompliance',
  'openShiftComplianceEvents',
  'trendReport',
  'awsCisS3',
  'hipaa',
  'iso2700',
  'nist800-53Rev4',
  'nist800-171Rev2',
  'pci',
  'soc',
  'awsSocRev2',
  'azureCis',
  'azureCis131',
  'azurePci',
  'azureSoc',
  'gcpCis',
  'gcpCis12',
  'gcpHipaa',
  'gcpHipaaRev2',
  'gcpIso27001',
  'gcpK8s',
  'gcpPci',
  'gcpPciRev2',
  'gcpSoc',
  'gcpSocRev2',
] as const;

export const REPORT_RULE_TYPE = 'Report';
