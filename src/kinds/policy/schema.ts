// The JSON Schema of Policy documents.

import { bool, closedSet, envelope, HAS_TEXT, int, obj, type SchemaObject } from '../schema-parts.js';

export const SCHEMA_FILE = 'policy.schema.json';
export const POLICY_TYPES = ['Violation', 'Compliance'] as const;
export const POLICY_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const FREQUENCIES = ['Hourly', 'Daily'] as const;
export const DEFAULT_LIMIT = 1000;
export const MAX_LIMIT = 5000;

function documentSchema(): SchemaObject {
  const spec = obj(
    'A custom policy: a query the service evaluates, how findings are rated and where their alerts take their text from.',
    {
      query: {
        type: 'string',
        minLength: 1,
        description: "The Query the policy evaluates, by name: one declared in this repository, or a live one (custom, or the service's predefined queries).",
        examples: ['TrailDeleted'],
      },
      title: { type: 'string', minLength: 1, pattern: HAS_TEXT, description: 'The title findings carry.', examples: ['CloudTrail trail deleted'] },
      description: { type: 'string', default: '', description: 'What the policy finds.', examples: ['A CloudTrail trail was deleted'] },
      remediation: {
        type: 'string',
        minLength: 1,
        pattern: HAS_TEXT,
        description: 'What to do about a finding; the service refuses an empty one.',
        examples: ['Re-create the trail and find out who deleted it'],
      },
      severity: closedSet('The severity of findings, by name.', { label: 'policy severity', values: POLICY_SEVERITIES, caseSensitive: false, open: false }, { example: 'high' }),
      type: closedSet('Violation (evaluated on a schedule) or Compliance (part of compliance reports). Default Violation.', { label: 'policy type', values: POLICY_TYPES, open: false }, {
        example: 'Violation',
        default: 'Violation',
      }),
      enabled: bool('Whether the policy is evaluated. Default true.', { default: true, example: true }),
      alertEnabled: bool('Whether findings raise alerts. Default true.', { default: true, example: true }),
      frequency: closedSet('How often a Violation policy is evaluated (the service: evalFrequency). Default Hourly. Compliance policies have none.', { label: 'evaluation frequency', values: FREQUENCIES, open: false }, {
        example: 'Daily',
      }),
      limit: int(`How many findings one evaluation reports at most. Default ${DEFAULT_LIMIT}.`, { minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, example: 500 }),
      tags: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', minLength: 1 },
        default: [],
        description: 'Tags of the policy, compared as a set (`key:value` is the predefined policies\' style).',
        examples: [['domain:AWS', 'team:platform']],
      },
      alertTemplate: {
        type: 'string',
        minLength: 1,
        pattern: '^[^.]+\\..+$',
        description:
          'The alert template whose text the alerts take, as `<AlertProfile name>.<template name>`: a profile declared in this repository or a live one (custom or predefined), the template checked to exist in it at validate (declared profiles) and plan. Left out, the live setting is kept.',
        examples: ['CUSTOM_TRAIL_PROFILE.Trail_Deleted'],
      },
      alertProfile: {
        type: 'string',
        minLength: 1,
        pattern: '^[^.]+$',
        description: 'An alert profile alone, without a template (the service takes a bare profile id too). Give this or alertTemplate. Left out, the live setting is kept.',
        examples: ['CUSTOM_TRAIL_PROFILE'],
      },
    },
    ['query', 'title', 'remediation', 'severity'],
  );
  return envelope(
    'Policy',
    SCHEMA_FILE,
    "A custom policy. Its name is the suffix the service derives its id from (`<tenant>-<name>`): lower-case letters (at most 16), optionally `-` and digits (at most 8); it cannot change.",
    spec,
    {
      name: 'traildeleted',
      spec: {
        query: 'TrailDeleted',
        title: 'CloudTrail trail deleted',
        remediation: 'Re-create the trail and find out who deleted it',
        severity: 'high',
        alertTemplate: 'CUSTOM_TRAIL_PROFILE.Trail_Deleted',
        tags: ['domain:AWS'],
      },
    },
  );
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
