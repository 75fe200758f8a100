// The JSON Schema of PredefinedPolicies documents: entries selecting predefined policies by id or by
// tag, each with the state to give them.

import { closedSet, envelope, obj, type SchemaObject } from '../schema-parts.js';
import { POLICY_SEVERITIES } from './records.js';

export const SCHEMA_FILE = 'predefined-policies.schema.json';

/** A predefined policy id as the service spells it: `<vendor>-global-<n>`. */
export const POLICY_ID_PATTERN = '^[a-z][a-z0-9]*-global-[0-9]+$';

function documentSchema(): SchemaObject {
  const entry = obj(
    'Predefined policies and the state to give them: one policy by id, or every one carrying a tag. Later entries win over earlier ones for the same policy.',
    {
      policy: {
        type: 'string',
        pattern: POLICY_ID_PATTERN,
        description: 'A predefined policy id, `<vendor>-global-<n>` (a custom policy\'s state is set in its Policy document).',
        examples: ['svc-global-8'],
      },
      tag: {
        type: 'string',
        minLength: 1,
        description: 'Every predefined policy carrying this tag, such as a framework (`framework:cis-aws-1-4-0`) or a domain (`domain:AWS`); `*` matches any text.',
        examples: ['framework:cis-aws-1-4-0'],
      },
      enabled: { enum: [true, false, 1, 0], description: 'Enable (true or 1) or disable (false or 0) the policies the entry selects; left out, they keep theirs.', examples: [true] },
      severity: closedSet('The severity to give the policies the entry selects; left out, they keep theirs.', { label: 'severity', values: POLICY_SEVERITIES, caseSensitive: false, open: false }),
    },
  );
  const spec = obj(
    "The state of the service's predefined policies in an account: which are enabled and at what severity. Policies no entry selects are left as they are; nothing is created or deleted.",
    { policies: { type: 'array', minItems: 1, items: entry, description: 'Entries, applied in order: a later entry overrides an earlier one for the policies both select.' } },
    ['policies'],
  );
  return envelope('PredefinedPolicies', SCHEMA_FILE, "The state (enabled, severity) of the service's predefined policies in an account, set in one bulk update.", spec, {
    name: 'predefined-policies',
    spec: {
      policies: [
        { tag: 'framework:cis-aws-1-4-0', enabled: true },
        { policy: 'svc-global-39', enabled: false },
        { policy: 'svc-global-8', severity: 'critical' },
      ],
    },
  });
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
