// One configuration file → its documents, read and checked one by one (syntax, schema, secrets, the
// kind's own checks, accounts), with its problems in the order found. Nothing here looks at other
// files: that is what lets files be read on several threads (parallel-load.ts) with the same result.

import { type Diagnostic, hasErrors, type SourcePosition } from '../model/diagnostics.js';
import { DOCUMENT_KINDS, KINDS, kindForDocument } from '../kinds/index.js';
import type { Kind } from '../kinds/types.js';
import type { Json, JsonObject } from '../model/json.js';
import { type EnvPolicy, interpolateDocument } from './interpolate.js';
import { parsePointer } from '../model/json-pointer.js';
import { checkSchema, positionAt } from './schema-check.js';
import { checkDocument, secretFacts } from './semantic.js';
import { didYouMean } from '../model/suggest.js';
import type { LoadOptions } from './types.js';
import type { RootConfig } from '../model/account.js';
import { type ParsedDocument, type PositionIndex, parseYamlDocuments } from './yaml-source.js';

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What one file yields: its documents (invalid ones marked), and its problems in the order found. */
export interface FileResult {
  loaded: LoadedDocument[];
  diagnostics: Diagnostic[];
  /** The values its documents read from the environment. */
  read: string[];
}

/** The documents of one file's text. Validators must be ready (prepareValidators). */
export function loadFileText(file: string, text: string, root: RootConfig | undefined, options: LoadOptions): FileResult {
  const diagnostics: Diagnostic[] = [];
  const loaded: LoadedDocument[] = [];
  const read = new Set<string>();
  for (const parsed of parseYamlDocuments(file, text, diagnostics)) {
    const own: Diagnostic[] = [];
    const doc = readDocument(parsed, root, options, own, read);
    diagnostics.push(...own);
    if (doc) loaded.push(doc);
  }
  return { loaded, diagnostics, read: [...read] };
}

/** One validated document before it is stamped into its accounts. */
export interface LoadedDocument {
  kind: string;
  name: string;
  accounts: string[];
  /** The document, `${env:...}` substituted. */
  value: JsonObject;
  /** Document-relative pointers → templates. */
  envRefs: Record<string, string>;
  /** Where its nodes are (line:column computed on demand). */
  positions: PositionIndex;
  source: SourcePosition;
  /** True when this document has errors of its own: it yields no resources. */
  invalid: boolean;
}


/**
 * Where a document may read the environment: values under `spec`, but for the members that name
 * something (the kind's references and identifiers); everywhere else (name, account,
 * previousNames, lifecycle) never.
 */
export function envPolicy(kind: Kind, root: RootConfig | undefined): EnvPolicy {
  // The same for every document of a kind under one root file: made once (a pure function of both).
  let byRoot = policies.get(kind);
  if (!byRoot) policies.set(kind, (byRoot = new Map()));
  let policy = byRoot.get(root);
  if (!policy) {
    // Kept for the last root file only: a long-lived process loading many configurations keeps one.
    byRoot.clear();
    byRoot.set(root, (policy = makeEnvPolicy(kind, root)));
  }
  return policy;
}

const policies = new WeakMap<Kind, Map<RootConfig | undefined, EnvPolicy>>();

function makeEnvPolicy(kind: Kind, root: RootConfig | undefined): EnvPolicy {
  const naming = [...(kind.references ?? []).map((r) => r.pointer), ...(kind.memberReferences ?? []).map((m) => m.pointer), ...(kind.identifiers ?? [])].map(parsePointer);
  const matches = (pattern: readonly string[], at: readonly string[]): boolean =>
    // A reference is a name or a list of names: its items are names too.
    (at.length === pattern.length || at.length === pattern.length + 1) && pattern.every((p, i) => p === '*' || p === at[i]);
  return {
    declared: root?.variables,
    readable: (pointer) => {
      if (!pointer.startsWith('/spec/')) return false;
      const at = parsePointer(pointer.slice('/spec'.length));
      return !naming.some((n) => matches(n, at));
    },
  };
}

export function readDocument(
  parsed: ParsedDocument,
  root: RootConfig | undefined,
  options: LoadOptions,
  out: Diagnostic[],
  read: Set<string> = new Set(),
): LoadedDocument | undefined {
  const { file, positions } = parsed;
  const where = (pointer: string, prefer: 'key' | 'value' = 'value'): SourcePosition =>
    positionAt(positions, pointer, prefer) ?? parsed.start;
  if (!isObject(parsed.value)) {
    out.push({
      severity: 'error',
      code: 'document-not-mapping',
      message: 'a document must be a mapping with `kind`, `name` and `spec`',
      ...parsed.start,
    });
    return undefined;
  }
  const kindValue = parsed.value.kind;
  if (typeof kindValue !== 'string' || !DOCUMENT_KINDS.includes(kindValue)) {
    const missing = kindValue === undefined;
    out.push({
      severity: 'error',
      code: missing ? 'missing-field' : 'unknown-kind',
      message: missing
        ? 'missing required field `kind`'
        : `unknown kind \`${typeof kindValue === 'string' ? kindValue : JSON.stringify(kindValue)}\`; expected one of: ${DOCUMENT_KINDS.join(', ')}`,
      ...(missing ? parsed.start : where('/kind')),
      field: '/kind',
      hint:
        typeof kindValue !== 'string'
          ? `expected one of: ${DOCUMENT_KINDS.join(', ')}`
          : (KINDS.find((k) => k.documentKind === null && k.kind === kindValue)?.hierarchy?.declaredIn ?? didYouMean(kindValue, DOCUMENT_KINDS)),
    });
    return undefined;
  }
  const kind = kindForDocument(kindValue)!;
  const interpolated = interpolateDocument(parsed.value, options.env, (p) => where(p), out, envPolicy(kind, root), options.missingEnv ?? 'error');
  for (const v of interpolated.read) read.add(v);
  const value = interpolated.value as JsonObject;
  const secrets = secretFacts(kind, value.spec);
  const schemaFile = kind.schema ?? '';
  out.push(
    ...checkSchema(schemaFile, value, {
      file,
      positions,
      quiet: (p) => p in interpolated.refs || secrets.all.includes(p),
      // A placeholder export wrote stands for a value still to be set: its shape is not checked.
      ignore: [...interpolated.missing, ...interpolated.placeholders],
      ...(root?.serviceValues ? { serviceValues: root.serviceValues } : {}),
    }),
  );
  out.push(
    ...checkDocument(kind, value, {
      where: (p) => where(p),
      envRefs: interpolated.refs,
      envProblems: interpolated.missing,
      literals: root?.secretLiterals,
      settings: root?.settings,
      secrets,
      now: (options.now ?? Date.now)(),
    }),
  );

  out.push(...renameChecks(kind, value, where));
  const name = typeof value.name === 'string' ? value.name : '';
  const accounts = root ? resolveAccounts(value.account, root, where, out) : [];
  return {
    kind: kindValue,
    name,
    accounts,
    value,
    envRefs: interpolated.refs,
    positions,
    source: parsed.start,
    invalid: hasErrors(out),
  };
}

/** `previousNames` needs a kind that renames in place, and never names the document's own name. */
function renameChecks(kind: Kind, value: JsonObject, where: (pointer: string) => SourcePosition): Diagnostic[] {
  const previous = value.previousNames;
  if (!Array.isArray(previous) || previous.length === 0) return [];
  if (!kind.rename?.inPlace) {
    return [
      {
        severity: 'error',
        code: 'rename-unsupported',
        message: `${kind.kind} \`${String(value.name)}\` gives previousNames, but ${kind.rename?.refusal ?? `the service cannot rename a ${kind.kind} in place`}`,
        ...where('/previousNames'),
        field: '/previousNames',
        hint: 'remove previousNames: the plan then deletes the old resource and creates the new one',
      },
    ];
  }
  const i = previous.indexOf(value.name as Json);
  if (i < 0) return [];
  return [{ severity: 'error', code: 'invalid-value', message: 'previousNames names the document\'s own name', ...where(`/previousNames/${i}`), field: `/previousNames/${i}` }];
}

/** The declared account names of a root file, as a set, once per list (parseRoot makes it, nothing changes it). */
const declaredSets = new WeakMap<readonly { name: string }[], ReadonlySet<string>>();
function declaredSet(root: RootConfig): ReadonlySet<string> {
  let names = declaredSets.get(root.accounts);
  if (!names) declaredSets.set(root.accounts, (names = new Set(root.accounts.map((a) => a.name))));
  return names;
}

function resolveAccounts(
  account: Json | undefined,
  root: RootConfig,
  where: (pointer: string) => SourcePosition,
  out: Diagnostic[],
): string[] {
  // Most documents name one account: its check needs no list of the declared ones.
  if (typeof account === 'string' && account !== '*' && account.trim() !== '' && declaredSet(root).has(account)) return [account];
  const declared = root.accounts.map((a) => a.name);
  if (account === undefined) {
    if (root.defaultAccount !== undefined) return [root.defaultAccount];
    if (declared.length === 1) return declared;
    out.push({ severity: 'error', code: 'account-missing', message: 'document names no account and postureops.yaml sets no defaults.account', ...where(''), field: '/account' });
    return [];
  }
  if (account === '*') return declared;
  const items: [string, string][] =
    typeof account === 'string' ? [[account, '/account']] : Array.isArray(account) ? account.map((a, i) => [String(a), `/account/${i}`]) : [];
  const out2: string[] = [];
  for (const [name, pointer] of items) {
    if (name.trim() === '') continue; // the schema reports it
    if (name === '*') {
      out.push({ severity: 'error', code: 'invalid-value', message: '"*" stands alone: write `account: "*"`, not inside a list', ...where(pointer), field: pointer });
      continue;
    }
    if (!declared.includes(name)) {
      out.push({
        severity: 'error',
        code: 'account-not-declared',
        message: `account \`${name}\` is not declared in postureops.yaml`,
        ...where(pointer),
        field: pointer,
        hint: didYouMean(name, declared) ?? `declared accounts: ${declared.join(', ')}`,
      });
      continue;
    }
    if (!out2.includes(name)) out2.push(name);
  }
  return out2;
}

