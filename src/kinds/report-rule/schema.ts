// The JSON Schema of ReportRule documents.

import { severityItem } from '../alert-rule/schema.js';
import { closedSet, commonRef, envelope, obj, type SchemaObject, typedChannels } from '../schema-parts.js';
import { REPORTS } from './reports.js';

export const SCHEMA_FILE = 'report-rule.schema.json';

function documentSchema(): SchemaObject {
  const spec = obj(
    'Which scheduled reports are e-mailed to which channels.',
    {
      channels: typedChannels(['EmailUser'], 'that receive the reports', 'secops-email'),
      reports: {
        type: 'array',
        uniqueItems: true,
        // Open: the service adds reports without notice; a name close to a known one is a misspelling.
        items: closedSet('A report, as the service names it.', { label: 'report', values: REPORTS, code: 'unknown-report' }),
        description: `The reports to receive, as the service names them; every other report is off. Known: ${REPORTS.join(', ')}.`,
        examples: [['awsComplianceEvents', 'pci', 'trendReport']],
      },
      severity: {
        type: 'array',
        uniqueItems: true,
        items: severityItem(),
        default: [],
        description: 'Severities the reports include, by name in any case or number (all when empty).',
        examples: [['critical', 'high']],
      },
      resourceGroups: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', minLength: 1, description: 'Name of a ResourceGroup of the same account (declared, live or a default group).' },
        default: [],
        description: 'ResourceGroup names the reports are limited to (all resources when empty); postureops sends their ids.',
        examples: [['prod-aws-eu']],
      },
      description: { type: 'string', default: '', description: 'Free text shown with the rule.', examples: ['Weekly compliance to the security team'] },
      enabled: commonRef('enabled'),
    },
    ['channels', 'reports'],
  );
  return envelope('ReportRule', SCHEMA_FILE, 'A report rule: routes scheduled reports (compliance, event summaries, trends) to e-mail channels.', spec, {
    name: 'weekly-compliance',
    spec: { channels: ['secops-email'], reports: ['awsComplianceEvents', 'pci', 'trendReport'] },
  });
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
