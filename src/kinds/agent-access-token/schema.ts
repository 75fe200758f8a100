// The JSON Schema of AgentAccessToken documents.

import { AGENT_OS } from '../spellings.js';
import { closedSet, envelope, obj, type SchemaObject } from '../schema-parts.js';

export const SCHEMA_FILE = 'agent-access-token.schema.json';

function documentSchema(): SchemaObject {
  const spec = obj('Whether agents may use the token, and what it is for.', {
    enabled: {
      type: 'boolean',
      default: true,
      description:
        'Whether agents may connect with the token. Default true. Tokens cannot be deleted: a token set to false is disabled, and so is one no file declares when postureops.yaml prunes AgentAccessToken by name (a blanket prune: true leaves tokens alone).',
      examples: [true],
    },
    description: { type: 'string', default: '', description: 'What the token is for.', examples: ['Kubernetes agents of the prod clusters'] },
    os: closedSet(
      'Operating system of the agents that use the token (the service keeps it in `props.os`). Left out, the live value is kept.',
      { label: 'agent operating system', values: AGENT_OS },
      { example: 'linux' },
    ),
  });
  return envelope(
    'AgentAccessToken',
    SCHEMA_FILE,
    'An agent access token (name = its alias): the credential workload agents connect with. Its value is issued on create and written only to the file given to `apply --credentials-out`.',
    spec,
    { name: 'k8s-prod', spec: { enabled: true, description: 'Kubernetes agents of the prod clusters' } },
  );
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
