// Schema problems of a document that was not read from a file (an exported one): the checks
// `validate` runs, without positions. Export uses it to write only what validates.

import type { Diagnostic } from '../model/diagnostics.js';
import type { JsonObject } from '../model/json.js';
import { kindForDocument } from '../kinds/index.js';
import { checkSchema } from './schema-check.js';
import { prepareValidators } from './validators.js';

/** A checker of whole documents (`kind`, `name`, `spec`) against their kind's schema. */
export async function documentChecker(): Promise<(doc: JsonObject) => Diagnostic[]> {
  await prepareValidators();
  return (doc) => {
    const schema = typeof doc.kind === 'string' ? kindForDocument(doc.kind)?.schema : undefined;
    if (!schema) return [{ severity: 'error', code: 'unknown-kind', message: `no schema for kind ${String(doc.kind)}`, field: '/kind' }];
    return checkSchema(schema, doc, { file: '', positions: { file: '', lines: [0], values: new Map(), keys: new Map() }, quiet: () => true, ignore: [] });
  };
}
