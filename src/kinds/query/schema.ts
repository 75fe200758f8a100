// The JSON Schema of Query documents.

import { envelope, obj, type SchemaObject } from '../schema-parts.js';

export const SCHEMA_FILE = 'query.schema.json';

export const EXAMPLE_TEXT = `{
    source {
        CloudTrailRawEvents e
    }
    filter {
        e.EVENT_NAME = 'DeleteTrail'
    }
    return distinct {
        e.INSERT_ID, e.EVENT_TIME, e.EVENT
    }
}
`;

function documentSchema(): SchemaObject {
  const spec = obj(
    'A custom query (name = its queryId): the text custom policies evaluate.',
    {
      text: {
        type: 'string',
        minLength: 1,
        description:
          'The query text, as the service keeps it: compared verbatim (whitespace and trailing spaces included). Anonymous `{ source {...} filter {...} return {...} }` or `<queryId> { ... }`; lines starting with `---` are comments. Its shape is checked offline (warnings) and by the service at plan.',
        examples: [EXAMPLE_TEXT],
      },
      name: { type: 'string', description: "The query's display name (the service's queryName). Left out, the live one is kept.", examples: ['Trail deleted'] },
      description: { type: 'string', description: 'What the query finds. Left out, the live one is kept.', examples: ['CloudTrail trails deleted'] },
      evaluatorId: {
        type: 'string',
        description: 'Legacy: the evaluator of an older query (`Cloudtrail`), as export writes it. The service refuses to change it; a change replaces the query. Left out, the live one is kept.',
        examples: ['Cloudtrail'],
      },
    },
    ['text'],
  );
  return envelope(
    'Query',
    SCHEMA_FILE,
    "A custom query. Its name is its queryId, chosen by you and unchangeable; policies name it in `query`. The service's predefined queries (the predefined prefix) are named without being declared.",
    spec,
    { name: 'TrailDeleted', spec: { name: 'Trail deleted', text: EXAMPLE_TEXT } },
  );
}

export function schemas(): Record<string, SchemaObject> {
  return { [SCHEMA_FILE]: documentSchema() };
}
