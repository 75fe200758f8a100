// The JSON Schema of AlertRule documents.

import { EVENT_CATEGORIES } from '../spellings.js';
import { closedSet, commonRef, envelope, obj, type SchemaObject } from '../schema-parts.js';
import { SEVERITIES } from './severities.js';

export const SCHEMA_FILE = 'alert-rule.schema.json';

/** A newer filter list: left out, the live rule keeps its own; null removes it. */
const newerList = (description: string, example: string[]): SchemaObject => ({
  type: ['array', 'null'],
  uniqueItems: true,
  items: { type: 'string', minLength: 1 },
  description: `${description} Left out, the live rule keeps its own; null removes it.`,
  examples: [example],
});

/** One severity of a rule: a name in any case (High, HIGH, high) or the service's integer. */
export function severityItem(): SchemaObject {
  return {
    anyOf: [
      { type: 'integer', minimum: 1, maximum: 5, description: "The service's number of a severity." },
      closedSet('A severity name.', { label: 'severity', values: Object.keys(SEVERITIES), caseSensitive: false, open: false }),
    ],
    description: 'critical (1), high (2), medium (3), low (4) or info (5), names in any case.',
  };
}

function documentSchema(): SchemaObject {
  const spec = obj(
    'Which alerts are sent to which channels.',
    {
      // Optional, as in the public clients (a rule without channels routes nowhere: a warning).
      channels: {
        type: 'array',
        uniqueItems: true,
        default: [],
        items: { type: 'string', minLength: 1, description: 'Name of an AlertChannel of the same account.' },
        description: 'AlertChannel names (of the same account) that receive the selected alerts. At least one: the service refuses a rule without channels.',
        examples: [['ops-slack', 'oncall-pagerduty']],
      },
      severity: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: severityItem(),
        description: 'Severities the rule selects, by name or number: critical=1, high=2, medium=3, low=4, info=5.',
        examples: [['critical', 'high']],
      },
      eventCategory: {
        type: 'array',
        uniqueItems: true,
        // The service has more categories than the seed's eight, adds them without notice, and
        // normalises their case (the rule reads them so too).
        items: closedSet('An event category.', { label: 'event category', values: EVENT_CATEGORIES, caseSensitive: false }),
        default: [],
        description: `Event categories the rule selects (all when empty), e.g. ${EVENT_CATEGORIES.join(', ')}.`,
        examples: [['Cloud', 'Compliance']],
      },
      category: newerList('Alert categories the rule selects (the newer filter beside eventCategory).', ['Policy', 'Anomaly']),
      subCategory: newerList('Alert subcategories the rule selects.', ['Compliance', 'Application']),
      source: newerList('Alert sources the rule selects.', ['AWS', 'Kubernetes']),
      resourceGroups: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', minLength: 1, description: 'Name of a ResourceGroup of the same account (declared, live or a default group).' },
        default: [],
        description: 'ResourceGroup names the rule is limited to (all resources when empty); postureops sends their ids.',
        examples: [['prod-aws-eu']],
      },
      description: { type: 'string', default: '', description: 'Free text shown with the rule.', examples: ['Critical cloud findings to on-call'] },
      enabled: commonRef('enabled'),
    },
    ['severity'],
  );
  return envelope('AlertRule', SCHEMA_FILE, 'An alert rule: routes alerts by category, severity and resource group to alert channels.', spec, {
    name: 'critical-cloud',
    spec: { channels: ['ops-slack'], severity: ['critical', 'high'], eventCategory: ['Cloud', 'Compliance'] },
  });
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
