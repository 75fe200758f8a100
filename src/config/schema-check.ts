// Schema validation and ajv errors → Diagnostics with the file, line and column of the offending
// node and a message a person can act on.

import type { ErrorObject } from 'ajv/dist/2020.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { Json } from '../model/json.js';
import { isWithin, parsePointer, toPointer } from '../model/json-pointer.js';
import { NOT_BLANK, PATTERN_PHRASES } from '../kinds/schema-parts.js';
import { didYouMean } from '../model/suggest.js';
import { validatorFor } from './validators.js';
import { checkValues } from './value-check.js';
import { type PositionIndex, positionOf } from './yaml-source.js';

export interface SchemaCheckContext {
  file: string;
  positions: PositionIndex;
  /** Pointers whose value may not be quoted (env-derived or secret). */
  quiet: (pointer: string) => boolean;
  /** Errors at or below these pointers are dropped (their value is missing for another reported reason). */
  ignore: readonly string[];
  /** The root file's `serviceValues`: closed-set values the service holds beyond the known ones. */
  serviceValues?: Readonly<Record<string, readonly string[]>>;
}

/** `/spec/alerts/0/name` → `spec.alerts[0].name`. */
export function fieldLabel(pointer: string): string {
  let out = '';
  for (const seg of parsePointer(pointer)) out += /^\d+$/.test(seg) ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out === '' ? 'document' : out;
}

/** Position of a pointer: its key for members (`key` preferred) or its value, else the nearest ancestor's. */
export function positionAt(positions: PositionIndex, pointer: string, prefer: 'key' | 'value'): SourcePosition | undefined {
  // Written as RFC 6901 spells it (a `~` not followed by 0 or 1 is escaped), its ancestors are the
  // pointer cut at each `/`.
  const normal = pointer === '' || (pointer.startsWith('/') && !pointer.includes('~')) ? pointer : toPointer(parsePointer(pointer));
  for (let p = normal; ; p = p.slice(0, p.lastIndexOf('/'))) {
    const found = positionOf(positions, p, prefer);
    if (found || p === '') return found;
  }
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing (null)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'boolean') return 'true/false';
  return `a ${typeof v}`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'null',
};

function listValues(values: readonly unknown[]): string {
  return values.map((v) => String(v)).join(', ');
}

// Which of several errors on one value to show: the most basic first.
const PRIORITY = ['type', 'const', 'enum', 'minLength', 'pattern', 'minItems', 'uniqueItems', 'minimum', 'maximum'];

/** ajv's verdict on the document, then the closed sets and format guesses it holds (value-check.ts). */
export function checkSchema(schemaFile: string, value: Json, ctx: SchemaCheckContext): Diagnostic[] {
  const values = checkValues(schemaFile, value, {
    at: (pointer) => {
      const p = positionAt(ctx.positions, pointer, 'value');
      return { file: ctx.file, line: p?.line, column: p?.column, field: pointer };
    },
    keyAt: (pointer) => {
      const p = positionAt(ctx.positions, pointer, 'key');
      return { file: ctx.file, line: p?.line, column: p?.column, field: pointer };
    },
    quiet: ctx.quiet,
    ignore: ctx.ignore,
    label: fieldLabel,
    ...(ctx.serviceValues ? { serviceValues: ctx.serviceValues } : {}),
  });
  const schema = ajvDiagnostics(schemaFile, value, ctx);
  // Most documents: nothing to weed out.
  if (schema.length === 0 && values.length === 0) return [];
  return dedupe(withoutMisspeltRequired([...schema, ...values]));
}

function ajvDiagnostics(schemaFile: string, value: Json, ctx: SchemaCheckContext): Diagnostic[] {
  const validate = validatorFor(schemaFile);
  if (validate(value)) return [];
  const all = (validate.errors ?? []).filter(
    (e) => e.keyword !== 'if' && !('propertyName' in e && e.keyword !== 'propertyNames') && !ctx.ignore.some((p) => isWithin(e.instancePath, p)),
  );
  // A value that matches no branch of an anyOf is one problem, said by the anyOf, not one per branch.
  const alternatives = all.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath);
  const errors = all.filter((e) => e.keyword === 'anyOf' || !alternatives.some((p) => isWithin(e.instancePath, p)));
  // One message per value (ajv reports e.g. minLength and pattern for ''), members each their own.
  const byValue = new Map<string, ErrorObject>();
  const out: Diagnostic[] = [];
  for (const e of errors) {
    if (e.keyword === 'required' || e.keyword === 'additionalProperties' || e.keyword === 'propertyNames') {
      out.push(toDiagnostic(e, ctx));
      continue;
    }
    const prev = byValue.get(e.instancePath);
    const rank = (k: string): number => (PRIORITY.includes(k) ? PRIORITY.indexOf(k) : PRIORITY.length);
    if (!prev || rank(e.keyword) < rank(prev.keyword)) byValue.set(e.instancePath, e);
  }
  for (const e of byValue.values()) out.push(toDiagnostic(e, ctx));
  return out;
}

/** `slackurl` reported as unknown with "did you mean `slackUrl`": the missing `slackUrl` says nothing more. */
function withoutMisspeltRequired(list: Diagnostic[]): Diagnostic[] {
  const guessed = new Set(
    list
      .filter((d) => d.code === 'unknown-field' && d.field)
      .map((d) => {
        const m = /did you mean `([^`]+)`/.exec(d.message);
        return m ? `${d.field!.slice(0, d.field!.lastIndexOf('/'))}/${m[1]}` : '';
      }),
  );
  return list.filter((d) => !(d.code === 'missing-field' && d.field && guessed.has(d.field)));
}

function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const k = `${d.field}|${d.code}|${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function toDiagnostic(e: ErrorObject, ctx: SchemaCheckContext): Diagnostic {
  const base = (pointer: string, prefer: 'key' | 'value'): Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'> => {
    const p = positionAt(ctx.positions, pointer, prefer);
    return { file: ctx.file, line: p?.line, column: p?.column, field: pointer };
  };
  const label = fieldLabel(e.instancePath);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const field = `${e.instancePath}/${missing}`;
      return { severity: 'error', code: 'missing-field', message: `missing required field \`${fieldLabel(field)}\``, ...base(e.instancePath, 'key'), field };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const known = Object.keys((e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
      const field = `${e.instancePath}/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const guess = didYouMean(extra, known);
      const where = e.instancePath === '' ? '' : ` in \`${label}\``;
      return {
        severity: 'error',
        code: 'unknown-field',
        message: `unknown field \`${extra}\`${where}${guess ? `; ${guess}` : ''}`,
        ...base(field, 'key'),
        ...(guess || known.length === 0 ? {} : { hint: `known fields here: ${known.join(', ')}` }),
      };
    }
    case 'propertyNames': {
      const name = String(params.propertyName);
      const allowed = (e.schema as { enum?: string[] } | undefined)?.enum ?? [];
      const field = `${e.instancePath}/${name}`;
      return {
        severity: 'error',
        code: 'invalid-value',
        message: `\`${label}\` cannot name \`${name}\`: expected one of: ${listValues(allowed)}`,
        ...base(field, 'key'),
        hint: didYouMean(name, allowed),
      };
    }
    case 'type': {
      const expected = String(params.type)
        .split(',')
        .map((t) => TYPE_WORDS[t] ?? t)
        .join(' or ');
      // YAML reads 123456789012, 0123 or true as numbers and booleans; quoting keeps them text.
      const quote = String(params.type) === 'string' && (typeof e.data === 'number' || typeof e.data === 'boolean');
      return {
        severity: 'error',
        code: 'invalid-type',
        message: `\`${label}\`: expected ${expected}, found ${describe(e.data)}`,
        ...base(e.instancePath, 'value'),
        ...(quote ? { hint: 'put the value in quotes to make it a string' } : {}),
      };
    }
    case 'enum':
    case 'const': {
      const allowed = e.keyword === 'enum' ? (params.allowedValues as unknown[]) : [params.allowedValue];
      const quiet = ctx.quiet(e.instancePath);
      const got = typeof e.data === 'string' && !quiet && e.data.length <= 60 ? ` (found \`${e.data}\`)` : '';
      const hint = typeof e.data === 'string' && !quiet ? didYouMean(e.data, allowed.map(String)) : undefined;
      const expected = allowed.length === 1 ? `\`${String(allowed[0])}\`` : `one of: ${listValues(allowed)}`;
      return { severity: 'error', code: 'invalid-value', message: `\`${label}\`: expected ${expected}${got}`, ...base(e.instancePath, 'value'), hint };
    }
    case 'pattern': {
      const pattern = String(params.pattern);
      const phrase = PATTERN_PHRASES[pattern];
      const blank = pattern === NOT_BLANK ? (typeof e.data === 'string' && /[\n\r\u2028\u2029]/.test(e.data) ? 'must be one line (it holds a line break)' : 'must not be only spaces') : undefined;
      const message =
        blank !== undefined ? `\`${label}\` ${blank}` : phrase ? `\`${label}\`: expected ${phrase}` : `\`${label}\` does not match ${pattern}`;
      return { severity: 'error', code: 'invalid-value', message, ...base(e.instancePath, 'value') };
    }
    case 'anyOf': {
      const what = String((e.parentSchema as { description?: unknown } | undefined)?.description ?? '').replace(/\.$/, '');
      return { severity: 'error', code: 'invalid-value', message: `\`${label}\`: expected ${what || 'another value'}`, ...base(e.instancePath, 'value') };
    }
    case 'minLength':
      return {
        severity: 'error',
        code: 'invalid-value',
        message: params.limit === 1 ? `\`${label}\` must not be empty` : `\`${label}\` must be at least ${String(params.limit)} characters long`,
        ...base(e.instancePath, 'value'),
      };
    case 'minItems':
      return {
        severity: 'error',
        code: 'invalid-value',
        message: params.limit === 1 ? `\`${label}\` must list at least one item` : `\`${label}\` must list at least ${String(params.limit)} items`,
        ...base(e.instancePath, 'key'),
      };
    case 'uniqueItems': {
      const j = Number(params.j);
      const i = Number(params.i);
      const item = `${e.instancePath}/${Math.max(i, j)}`;
      return {
        severity: 'error',
        code: 'duplicate-item',
        message: `\`${label}\` lists the same item twice (items ${Math.min(i, j) + 1} and ${Math.max(i, j) + 1})`,
        ...base(item, 'value'),
      };
    }
    case 'minimum':
    case 'maximum':
      return {
        severity: 'error',
        code: 'invalid-value',
        message: `\`${label}\`: expected a number ${e.keyword === 'minimum' ? '≥' : '≤'} ${String(params.limit)}`,
        ...base(e.instancePath, 'value'),
      };
    default:
      return { severity: 'error', code: 'schema-violation', message: `\`${label}\` ${e.message ?? 'is invalid'}`, ...base(e.instancePath, 'value') };
  }
}
