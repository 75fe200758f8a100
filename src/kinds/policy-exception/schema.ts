// The JSON Schema of PolicyException documents: the exceptions of one policy, each a description
// (its identity) and constraints by field key.

import { envelope, NOT_BLANK, obj, type SchemaObject } from '../schema-parts.js';

export const SCHEMA_FILE = 'policy-exception.schema.json';

const text = (description: string, example: string): SchemaObject => ({ type: 'string', minLength: 1, description, examples: [example] });

function documentSchema(): SchemaObject {
  const tag = obj('A tag (or label) and the values it may have.', {
    key: text('The tag key.', 'environment'),
    value: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', minLength: 1 },
      description: 'The values, a list (the older one-value string is accepted by the service but does not take effect). No wildcards in tags.',
      examples: [['dev', 'test']],
    },
  }, ['key', 'value']);
  const constraint: SchemaObject = {
    description: 'The values of one field key: strings (`*` and other wildcards accepted), or tags `{key, value: [..]}` for a tag key such as resourceTags.',
    anyOf: [
      { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 }, description: 'Values of a String or Number key (accountIds, regionNames, resourceNames, arns, organizations, projects...).' },
      { type: 'array', minItems: 1, items: tag, description: 'Tags of a tag key (resourceTags, resourceLabels).' },
    ],
  };
  const exception = obj(
    'One exception: the resources it exempts from the policy. Its constraints combine with AND; the exceptions of a policy with OR.',
    {
      description: { type: 'string', minLength: 1, pattern: NOT_BLANK, description: "The exception's identity within its policy (the service gives exceptions no name): unique per policy.", examples: ['Public website buckets'] },
      constraints: {
        type: 'object',
        minProperties: 1,
        propertyNames: { minLength: 1 },
        additionalProperties: constraint,
        description: "Field keys the policy's exceptionConfiguration lists (checked against the live policy), each with its values.",
        examples: [{ accountIds: ['123456789012'], resourceTags: [{ key: 'public', value: ['true'] }] }],
      },
      previousDescriptions: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', minLength: 1 },
        description: 'Descriptions the live exception may still have: the plan changes its description in place instead of replacing it.',
        examples: [['Public buckets']],
      },
    },
    ['description', 'constraints'],
  );
  const spec = obj(
    'The exceptions of the policy this document names. A live exception of that policy that no entry describes is unmanaged (deleted with prune on).',
    { exceptions: { type: 'array', minItems: 1, items: exception, description: 'The exceptions, each with a description unique in this document.' } },
    ['exceptions'],
  );
  return envelope(
    'PolicyException',
    SCHEMA_FILE,
    "The exceptions of one policy, named by the document: a custom Policy's name or a predefined policy's id (`<vendor>-global-<n>`).",
    spec,
    {
      name: 'svc-global-8',
      spec: { exceptions: [{ description: 'Public website buckets', constraints: { accountIds: ['123456789012'], resourceNames: ['www-example-com'] } }] },
    },
  );
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
