// An export always validates: a document is checked against its kind's schema (the check is handed
// in, so the engine stays below config), members the schema refuses are left out of the file with a
// warning naming the resource and the member, and a document that still does not validate (a
// required member missing or unusable) is left out whole. Nothing is lost in the service: plan
// carries live members a file does not name. A value the schema only warns about (a format check
// on a value the service itself accepted) is written as read, with a warning naming the record.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { JsonObject } from '../../model/json.js';
import { hasAt, isWithin, removeAt } from '../../model/json-pointer.js';

export type DocumentCheck = (doc: JsonObject) => Diagnostic[];

export interface Fitted {
  /** The spec as it validates, or undefined when no spec without the refused members validates. */
  spec?: JsonObject;
  diagnostics: Diagnostic[];
  /** Why the document was left out. */
  reason?: string;
}

/** Rounds of leaving members out: each round removes at least one, so a few always suffice. */
const MAX_ROUNDS = 8;

export function fitDocument(doc: { kind: string; name: string; account: string; spec: JsonObject }, check: DocumentCheck): Fitted {
  const where = `${doc.kind} "${doc.name}" in account ${doc.account}`;
  const diagnostics: Diagnostic[] = [];
  let spec = doc.spec;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const found = check({ kind: doc.kind, name: doc.name, account: doc.account, spec });
    const problems = found.filter((p) => p.severity === 'error');
    if (problems.length === 0) return { spec, diagnostics: [...diagnostics, ...kept(where, found)] };
    const droppable = problems.filter((p) => p.code !== 'missing-field' && p.field !== undefined && isWithin(p.field, '/spec') && p.field !== '/spec');
    if (droppable.length < problems.length) break;
    // Outermost first: a refused object goes whole, its members need no message of their own.
    const fields = [...new Set(droppable.map((p) => p.field!.slice('/spec'.length)))].sort((a, b) => a.length - b.length);
    let removed = 0;
    for (const field of fields) {
      if (!hasAt(spec, field)) continue;
      spec = removeAt(spec, field);
      removed++;
      const why = droppable.find((p) => p.field === '/spec' + field)?.message ?? 'refused by the schema';
      diagnostics.push({
        severity: 'warning',
        code: 'export-member-left-out',
        message: `${where}: spec${field} cannot be written as read (${why}); left out of the file, the service keeps it`,
        field: '/spec' + field,
        hint: 'plan does not change a live member the file leaves out; set it to null in the file to remove it',
      });
    }
    if (removed === 0) break;
  }
  const rest = check({ kind: doc.kind, name: doc.name, account: doc.account, spec }).filter((p) => p.severity === 'error');
  const reason = `it does not validate as this version reads ${doc.kind}: ${rest.map((p) => p.message).join('; ')}`;
  return {
    diagnostics: [
      ...diagnostics,
      { severity: 'warning', code: 'export-resource-left-out', message: `${where}: ${reason}; left out of the export`, hint: 'manage it in the service, or write its document by hand' },
    ],
    reason,
  };
}

/** The check's warnings on members of the spec: written as read, and said so with the record's name. */
function kept(where: string, found: readonly Diagnostic[]): Diagnostic[] {
  return found
    .filter((p) => p.severity === 'warning' && p.field !== undefined && isWithin(p.field, '/spec'))
    .map((p) => ({
      severity: 'warning' as const,
      code: 'export-value-kept',
      message: `${where}: spec${p.field!.slice('/spec'.length)} is written as the service holds it, though ${p.message}`,
      field: p.field,
      hint: 'the service accepted this value; validate warns about it and plan leaves it as it is',
    }));
}
