// The JSON Schema of postureops.yaml's `routing` section: requirements every routing map must meet
// and route tests (README.md, "Routing"). Severities come from the rule kind's routing dimensions.

import { routingDimensions } from '../kinds/routing.js';
import { NOT_BLANK, bool, obj, type SchemaObject } from '../kinds/schema-parts.js';

const names = (description: string, example: unknown): SchemaObject => ({
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, pattern: NOT_BLANK },
  description,
  examples: [example],
});

const allOr = (description: string, example: unknown, single = false): SchemaObject => ({
  description,
  anyOf: [{ const: '*' }, ...(single ? [{ type: 'string', minLength: 1, pattern: NOT_BLANK }] : []), names(description, example)],
  examples: ['*', example],
});

const atLeastOne = (schema: SchemaObject): SchemaObject => ({ ...schema, minProperties: 1 });

export function routingSchema(): SchemaObject {
  const dims = routingDimensions();
  const severity: SchemaObject = { enum: [...dims.severities.map((s) => s.name), ...dims.severities.map((s) => s.code)] };
  const severityList: SchemaObject = {
    description: `Severities: "*" for all, or a list of ${dims.severities.map((s) => s.name).join(', ')} (or 1..${dims.severities.length}).`,
    anyOf: [{ const: '*' }, { type: 'array', minItems: 1, uniqueItems: true, items: severity }],
    examples: [['critical'], '*'],
  };
  const category = `Event categories (${dims.categories.join(', ')} or any other the service uses)`;
  return obj('Routing requirements and route tests, checked by `validate` against the configuration and by `plan` against the state it leads to.', {
    requirements: {
      type: 'array',
      description: 'Who must be alerted for what. A requirement fails in every cell (account, event category, severity) it covers that reaches none of the channels it asks for.',
      items: obj(
        'One requirement.',
        {
          name: { type: 'string', minLength: 1, pattern: NOT_BLANK, description: 'Name shown when the requirement fails.', examples: ['critical-pages'] },
          accounts: allOr('Accounts it covers: one name, a list, or "*" for every account.', ['prod'], true),
          eventCategory: allOr(`${category}: "*" for all, or a list.`, ['Cloud', 'Compliance']),
          severity: severityList,
          reach: atLeastOne(obj(
            'What each covered cell must reach: at least one channel of one of these types, or one of these channels by name.',
            {
              types: names('Channel types, e.g. PagerDutyApi.', ['PagerDutyApi', 'VictorOps']),
              channels: names('Channel names.', ['oncall-pagerduty']),
            },
          )),
          allResources: bool('Count only routes of rules that apply to all resources (no resourceGroups) and set no category/subCategory/source filter.', { default: false }),
          healthy: bool(
            'Count only channels the service reports healthy (state ok, and a success since). Checked by `plan` against the live state: a plan is refused when it leaves a covered cell without a healthy channel and it changes that cell or the cell had one before; a channel the plan creates or changes counts as unknown until tested. `validate` cannot know health.',
            { default: false },
          ),
        },
        ['name', 'accounts', 'eventCategory', 'severity', 'reach'],
      ),
    },
    tests: {
      type: 'array',
      description: 'Route tests run by `validate`: the channels an alert of one cell reaches must be exactly `expect` (as `postureops routes test --expect` checks).',
      items: obj(
        'One route test.',
        {
          name: { type: 'string', minLength: 1, pattern: NOT_BLANK, description: 'Name shown when the test fails.' },
          account: { type: 'string', minLength: 1, pattern: NOT_BLANK, description: 'Account name.' },
          eventCategory: { type: 'string', minLength: 1, pattern: NOT_BLANK, description: category.replace('categories', 'category') + '.' },
          severity: { ...severity, description: 'Severity name or number.' },
          expect: { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 }, description: 'Channel names, exactly; [] when the cell must reach nothing.' },
        },
        ['account', 'eventCategory', 'severity', 'expect'],
      ),
    },
  });
}
