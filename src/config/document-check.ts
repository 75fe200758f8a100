// Schema problems of a document that was not read from a file (an exported one): the checks
// `validate` runs, without positions. Export uses it to write only what validates, and to find the
// values it must list in `serviceValues` (a live value close to a known one is the service's).

import type { Diagnostic } from '../model/diagnostics.js';
import type { JsonObject } from '../model/json.js';
import type { ServiceValues } from '../model/account.js';
import { kindForDocument } from '../kinds/index.js';
import { membership } from '../model/suggest.js';
import { checkSchema } from './schema-check.js';
import { prepareValidators } from './validators.js';
import { annotatedValues } from './value-check.js';

/** A checker of whole documents (`kind`, `name`, `spec`) against their kind's schema, under the root file's `serviceValues`. */
export async function documentChecker(): Promise<(doc: JsonObject, serviceValues?: ServiceValues) => Diagnostic[]> {
  await prepareValidators();
  return (doc, serviceValues) => {
    const schema = typeof doc.kind === 'string' ? kindForDocument(doc.kind)?.schema : undefined;
    if (!schema) return [{ severity: 'error', code: 'unknown-kind', message: `no schema for kind ${String(doc.kind)}`, field: '/kind' }];
    return checkSchema(schema, doc, {
      file: '',
      positions: { file: '', lines: [0], values: new Map(), keys: new Map() },
      quiet: () => true,
      ignore: [],
      ...(serviceValues ? { serviceValues } : {}),
    });
  };
}

/** The closed-set values of a document that a file would take for misspellings (close to a known one), by set label. */
export function misspeltValues(doc: JsonObject): { label: string; value: string; pointer: string }[] {
  const schema = typeof doc.kind === 'string' ? kindForDocument(doc.kind)?.schema : undefined;
  if (!schema) return [];
  return annotatedValues(schema, doc)
    .filter((a) => a.set !== undefined && membership(a.value, a.set.values, a.set.caseSensitive ?? true).is === 'misspelt')
    .map((a) => ({ label: a.set!.label, value: a.value, pointer: a.pointer }));
}
