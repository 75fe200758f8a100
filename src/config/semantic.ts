// Checks a schema cannot express, per document: secrets given literally (where the kind says its
// secrets are), then the kind's own offline checks (Kind.checkDocument). Every problem is returned,
// none thrown. Nothing here knows a kind by name.

import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { Kind } from '../kinds/types.js';
import { isObject, type Json, type JsonObject } from '../model/json.js';
import { getAt } from '../model/json-pointer.js';

/**
 * Secret pointers of a document (document-relative: `/spec/data/...`): every secret member its kind
 * names for this spec as a file holds it (Kind.secretMembers), and whatever it declares write-only
 * or sensitive.
 */
export function secretPointers(kind: Kind, spec: Json | undefined): string[] {
  if (!isObject(spec)) return [];
  const pointers = [...kind.secretMembers(spec).map((m) => m.pointer), ...kind.writeOnly(spec), ...kind.sensitive(spec)];
  return [...new Set(pointers)].map((p) => '/spec' + p);
}

export interface SemanticContext {
  where: (pointer: string) => SourcePosition | undefined;
  /** Document pointers whose value came from `${env:...}`. */
  envRefs: Record<string, string>;
  /** Pointers with a malformed or unset reference: already reported, not literal secrets. */
  envProblems: readonly string[];
  /** The root file's kind settings (Kind.rootSettings). */
  settings?: JsonObject;
}

export function checkDocument(kind: Kind, doc: JsonObject, ctx: SemanticContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (pointer: string): Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'> => ({ ...ctx.where(pointer), field: pointer });
  const spec = doc.spec;

  for (const pointer of secretPointers(kind, spec)) {
    if (getAt(doc, pointer) === undefined || pointer in ctx.envRefs || ctx.envProblems.includes(pointer)) continue;
    const label = pointer.replace(/^\/spec\//, '').split('/').join('.');
    out.push({
      severity: 'error',
      code: 'secret-literal',
      message: `${label} is a secret: take it from the environment with \${env:NAME}`,
      ...at(pointer),
      hint: `e.g. ${label.split('.').pop()}: \${env:${envNameFor(String(doc.name ?? ''), label)}} and keep the value out of the repository`,
    });
  }

  out.push(...(kind.checkDocument?.(doc, at, ctx.settings ?? {}) ?? []));
  return out;
}

/** A variable name suggestion: `ops-slack` + `data.slackUrl` → `OPS_SLACK_SLACK_URL`. */
function envNameFor(name: string, label: string): string {
  const words = `${name}_${label.split('.').pop() ?? ''}`.replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return words.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'NAME';
}
