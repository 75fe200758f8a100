// Checks a schema cannot express, per document: secrets given literally (where the kind says its
// secrets are: always an error in a write-only credential, by the repository's `secrets.literals`
// policy in a secret the service returns in clear), then the kind's own offline checks
// (Kind.checkDocument). Every problem is returned, none thrown. Nothing here knows a kind by name.

import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { Kind } from '../kinds/types.js';
import type { SecretLiteralPolicy } from '../model/account.js';
import { isObject, type Json, type JsonObject } from '../model/json.js';
import { getAt } from '../model/json-pointer.js';
import { isMaskedValue } from '../model/secret-detection.js';

/** Where a document's secrets are (document-relative pointers: `/spec/data/...`). */
export interface SecretFacts {
  /**
   * Every secret member its kind names for this spec as a file holds it (Kind.secretMembers), and
   * whatever it declares write-only or sensitive.
   */
  all: string[];
  /** The write-only ones among them. */
  writeOnly: Set<string>;
}

/** The secret pointers of a document, asking the kind once for each list. */
export function secretFacts(kind: Kind, spec: Json | undefined): SecretFacts {
  if (!isObject(spec)) return { all: [], writeOnly: new Set() };
  const facts = kind.secrets?.facts?.(spec);
  const members = facts ? facts.members : (kind.secrets?.secretMembers?.(spec) ?? []);
  const writeOnly = facts ? facts.writeOnly : (kind.secrets?.writeOnly?.(spec) ?? []);
  const pointers = [...members.map((m) => m.pointer), ...writeOnly, ...(facts ? facts.sensitive : (kind.secrets?.sensitive?.(spec) ?? []))];
  return {
    all: [...new Set(pointers)].map((p) => '/spec' + p),
    writeOnly: new Set([...members.filter((m) => m.writeOnly).map((m) => m.pointer), ...writeOnly].map((p) => '/spec' + p)),
  };
}

export interface SemanticContext {
  where: (pointer: string) => SourcePosition | undefined;
  /** Document pointers whose value came from `${env:...}`. */
  envRefs: Record<string, string>;
  /** Pointers with a malformed or unset reference: already reported, not literal secrets. */
  envProblems: readonly string[];
  /** A literal in a secret the service returns in clear (default `warn`). */
  literals?: SecretLiteralPolicy;
  /** The root file's kind settings (Kind.rootSettings). */
  settings?: JsonObject;
  /** Epoch ms the document is judged at (LoadOptions.now); default now. */
  now?: number;
  /** secretFacts of the document, when the caller has them already. */
  secrets?: SecretFacts;
}

export function checkDocument(kind: Kind, doc: JsonObject, ctx: SemanticContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (pointer: string): Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'> => ({ ...ctx.where(pointer), field: pointer });
  const spec = doc.spec;
  const secrets = ctx.secrets ?? secretFacts(kind, spec);
  const writeOnly = secrets.writeOnly;
  const policy = ctx.literals ?? 'warn';

  for (const pointer of secrets.all) {
    // Absent, or `null` (the file removes the member): no value to judge.
    const value = getAt(doc, pointer);
    if (value === undefined || value === null || pointer in ctx.envRefs || ctx.envProblems.includes(pointer)) continue;
    const label = pointer.replace(/^\/spec\//, '').split('/').join('.');
    const suggestion = `${label.split('.').pop()}: \${env:${envNameFor(String(doc.name ?? ''), label)}}`;
    if (isMaskedValue(value)) {
      out.push({
        severity: 'error',
        code: 'secret-literal',
        message: `${label} holds a mask (${JSON.stringify(value)}), as the service shows a hidden secret: sending it would overwrite the real value`,
        ...at(pointer),
        hint: `take the real value from the environment (e.g. ${suggestion}), or remove the member to leave the live value alone`,
      });
      continue;
    }
    if (writeOnly.has(pointer)) {
      out.push({
        severity: 'error',
        code: 'secret-literal',
        message: `${label} is a secret the service never returns (write-only): take it from the environment with \${env:NAME}`,
        ...at(pointer),
        hint: `e.g. ${suggestion} and keep the value out of the repository`,
      });
      continue;
    }
    if (policy === 'allow') continue;
    out.push({
      severity: policy === 'error' ? 'error' : 'warning',
      code: 'secret-literal',
      message: `${label} carries a credential and is written in the file: anyone who reads the repository can use it (postureops masks it in every output)`,
      ...at(pointer),
      hint:
        policy === 'error'
          ? `postureops.yaml sets secrets.literals: error; write e.g. ${suggestion}`
          : `prefer e.g. ${suggestion}; postureops.yaml \`secrets: {literals: allow}\` silences this, \`error\` refuses it`,
    });
  }

  out.push(...(kind.documents?.check?.(doc, at, ctx.settings ?? {}, { now: ctx.now ?? Date.now() }) ?? []));
  return out;
}

/** A variable name suggestion: `ops-slack` + `data.slackUrl` → `OPS_SLACK_SLACK_URL`. */
function envNameFor(name: string, label: string): string {
  const words = `${name}_${label.split('.').pop() ?? ''}`.replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return words.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'NAME';
}
