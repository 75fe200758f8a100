// The ajv instance that compiles the schema catalog: draft 2020-12, every error, no coercion, no
// defaults written into the input. Used at build time (standalone code) and as the run-time fallback.

import { Ajv2020 } from 'ajv/dist/2020.js';
import { schemaCatalog } from './schema-catalog.js';
import { CLOSED_SET_KEYWORD, FORMAT_KEYWORD, OPEN_MEMBERS_KEYWORD } from '../kinds/schema-parts.js';

export function createAjv(code?: { source: boolean; esm: boolean }): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true, // errors carry parentSchema: the known members for "did you mean"
    strict: true,
    strictTypes: false,
    strictRequired: false, // `then: {required: [...]}` names members defined next to the `if`
    coerceTypes: false,
    useDefaults: false,
    ...(code ? { code } : {}),
  });
  // Annotations ajv does not judge: value-check.ts does (a warning is not a JSON Schema verdict).
  ajv.addKeyword(CLOSED_SET_KEYWORD);
  ajv.addKeyword(FORMAT_KEYWORD);
  ajv.addKeyword(OPEN_MEMBERS_KEYWORD);
  // Registered, not compiled: a schema is compiled on first use, with only what it references.
  for (const schema of Object.values(schemaCatalog())) ajv.addSchema(schema);
  return ajv;
}
