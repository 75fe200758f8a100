// The JSON Schema of ResourceGroup documents: the query in the readable form (`all:` / `any:`) or
// in the service's own (`filters` + `expression`); the kind's offline check says which is which.

import { closedSet, commonRef, envelope, obj, str, type SchemaObject } from '../schema-parts.js';
import { DEFAULT_OPERATION, OPERATORS } from './query.js';
import { FIELDS, OPERATIONS, RESOURCE_TYPES } from './tables.js';

export const SCHEMA_FILE = 'resource-group.schema.json';

const local = (def: string): SchemaObject => ({ $ref: `#/$defs/${def}` });

const values = (): SchemaObject => ({
  type: 'array',
  minItems: 1,
  items: { type: 'string', minLength: 1 },
  description: 'Values the field is compared with; `*` matches all.',
  examples: [['123456789012'], ['*']],
});
// Operations beyond those seen may appear (api-facts.md): an open set, the known ones offered.
const operation = (): SchemaObject => closedSet('How the field is compared.', { label: 'query operation', values: OPERATIONS }, { example: 'STARTS_WITH' });
const field = (): SchemaObject =>
  str(`The field compared. Seen per resource type: ${Object.entries(FIELDS).map(([t, fs]) => `${t} ${fs.join(', ')}`).join('; ')}.`, { example: 'Region' });
const key = (): SchemaObject => str('The tag or label name, for the `Resource Tag`, `Resource Label`, `Machine Tag` and `Container Label` fields.', { example: 'env' });

function defs(): Record<string, SchemaObject> {
  const list = (description: string): SchemaObject => ({ type: 'array', minItems: 1, items: local('node'), description });
  return {
    node: obj('A condition, or a nested `all:` / `any:` of conditions.', {
      all: list('Matches resources that every item matches.'),
      any: list('Matches resources that at least one item matches.'),
      field: field(),
      operation: { ...operation(), description: `${String(operation().description)} Default ${DEFAULT_OPERATION}.` },
      key: key(),
      values: values(),
    }),
    filter: obj('One named filter of the service.', { field: field(), operation: operation(), values: values(), key: key() }, ['field', 'operation', 'values']),
    expression: obj('How the filters combine.', {
      operator: closedSet('How the children combine.', { label: 'query operator', values: OPERATORS, open: false }, { example: 'AND' }),
      children: { type: 'array', minItems: 1, items: local('expression'), description: 'Filters by name, or nested expressions.' },
      filterName: str('A filter of `filters` by its name.', { example: 'region' }),
    }),
  };
}

function documentSchema(): SchemaObject {
  const query = obj(
    'Which resources the group holds. Readable form: `all:` or `any:` with conditions `{field, operation, values, key}` (nestable). ' +
      'Or the service\'s own: `filters` by name plus `expression`. Compared as the service normalises: filter names and the order of children make no difference.',
    {
      all: { type: 'array', minItems: 1, items: local('node'), description: 'Resources every condition matches.' },
      any: { type: 'array', minItems: 1, items: local('node'), description: 'Resources at least one condition matches.' },
      filters: { type: 'object', minProperties: 1, additionalProperties: local('filter'), description: 'The service form: filters by name.' },
      expression: local('expression'),
    },
  );
  const spec = obj(
    'A set of resources of one type that alert rules and report rules are limited to.',
    {
      resourceType: closedSet('The type of the resources in the group; it cannot change (a change replaces the group).', { label: 'resource type', values: RESOURCE_TYPES }, { example: 'AWS' }),
      description: { type: 'string', default: '', description: 'Free text shown with the group.', examples: ['Production AWS accounts in Europe'] },
      enabled: commonRef('enabled'),
      query,
      props: {
        type: ['object', 'string'],
        description:
          "An older group's `props` as the service holds it (export writes it for a group that has no query): carried as written. JSON text (as the service returned some) reads as the object it encodes. Give `query` instead to rewrite the group.",
      },
    },
    ['resourceType'],
  );
  const schema = envelope(
    'ResourceGroup',
    SCHEMA_FILE,
    "A resource group. Alert rules and report rules name it in `resourceGroups`; the service's default groups are named without being declared.",
    spec,
    {
      name: 'prod-aws-eu',
      spec: { resourceType: 'AWS', query: { all: [{ field: 'Account', values: ['123456789012'] }, { field: 'Region', operation: 'STARTS_WITH', values: ['eu-'] }] } },
    },
  );
  schema.$defs = defs();
  return schema;
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
