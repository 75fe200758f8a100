// postureops.yaml: the accounts a repository manages, the default account, pruning and what it never
// deletes (`protect`), the secrets policy, the safety thresholds.

import type { Kind } from '../kinds/types.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { JsonObject } from '../model/json.js';
import { type AccountConfig, type RootConfig, type SafetySettings, type SecretLiteralPolicy } from '../model/account.js';
import { positionAt, checkSchema } from './schema-check.js';
import { ROOT_SCHEMA } from './schema-catalog.js';
import { didYouMean } from '../model/suggest.js';
import { escapePointerSegment, toPointer } from '../model/json-pointer.js';
import { declarationProblem, envNames, hasEnvRef, hasUnclosedEnvRef, malformedEnvRefs } from '../model/env.js';
import type { Json } from '../model/json.js';
import { parseYamlDocuments } from './yaml-source.js';
import { parseRouting } from './routing.js';

/** The root config from the file's text, or undefined when it is unusable (diagnostics say why). */
export function parseRoot(
  absFile: string,
  file: string,
  text: string,
  kinds: readonly Pick<Kind, 'kind' | 'hierarchy' | 'lifecycle' | 'rootSettings'>[],
  diagnostics: Diagnostic[],
): RootConfig | undefined {
  const docs = parseYamlDocuments(file, text, diagnostics);
  if (docs.length === 0) {
    if (!diagnostics.some((d) => d.file === file && d.severity === 'error'))
      diagnostics.push({ severity: 'error', code: 'root-invalid', message: 'postureops.yaml is empty; it must declare `accounts`', file, line: 1, column: 1 });
    return undefined;
  }
  if (docs.length > 1) {
    diagnostics.push({
      severity: 'error',
      code: 'root-invalid',
      message: 'postureops.yaml must hold exactly one document',
      ...docs[1].start,
      hint: 'move resource documents into their own files',
    });
    return undefined;
  }
  const doc = docs[0];
  const references = envReferences(doc.value);
  for (const pointer of references) {
    diagnostics.push({
      severity: 'error',
      code: 'env-not-here',
      message: 'postureops.yaml never reads the environment: ${env:...} is read only in values under `spec` of documents',
      ...positionAt(doc.positions, pointer, 'value'),
      field: pointer,
    });
  }
  const errors = checkSchema(ROOT_SCHEMA, doc.value, { file, positions: doc.positions, quiet: () => false, ignore: [] });
  diagnostics.push(...errors);
  if (errors.length > 0 || references.length > 0) return undefined;

  const value = doc.value as JsonObject;
  const where = (pointer: string, prefer: 'key' | 'value' = 'value') => ({ ...positionAt(doc.positions, pointer, prefer), field: pointer });
  const accounts: AccountConfig[] = [];
  let ok = true;
  (value.accounts as JsonObject[]).forEach((a, i) => {
    const name = String(a.name);
    if (accounts.some((x) => x.name === name)) {
      diagnostics.push({ severity: 'error', code: 'duplicate-account', message: `account \`${name}\` is declared twice`, ...where(`/accounts/${i}/name`) });
      ok = false;
      return;
    }
    accounts.push({ name, orgAccess: a.orgAccess === true });
  });
  const orgs = accounts.filter((a) => a.orgAccess);
  if (orgs.length > 1) {
    diagnostics.push({
      severity: 'error',
      code: 'duplicate-org-account',
      message: `only one account may address organization-level data; ${orgs.map((a) => a.name).join(', ')} all set orgAccess`,
      ...where('/accounts'),
    });
    ok = false;
  }
  const defaults = value.defaults as JsonObject | undefined;
  const defaultAccount = typeof defaults?.account === 'string' ? defaults.account : undefined;
  if (defaultAccount !== undefined && !accounts.some((a) => a.name === defaultAccount)) {
    diagnostics.push({
      severity: 'error',
      code: 'account-not-declared',
      message: `defaults.account names \`${defaultAccount}\`, which \`accounts\` does not declare`,
      ...where('/defaults/account'),
      hint: didYouMean(defaultAccount, accounts.map((a) => a.name)) ?? `declared accounts: ${accounts.map((a) => a.name).join(', ')}`,
    });
    ok = false;
  }
  if (defaultAccount === undefined && accounts.length > 1) {
    diagnostics.push({
      severity: 'error',
      code: 'default-account-missing',
      message: 'defaults.account is required when more than one account is declared',
      ...where('/accounts', 'key'),
      hint: `add defaults: {account: ${accounts[0].name}} (documents that name no account go there)`,
    });
    ok = false;
  }
  if (!ok) return undefined;

  // Per kind; a child kind left out follows its parent (templates follow their profiles).
  const given = value.prune !== null && typeof value.prune === 'object' ? (value.prune as JsonObject) : {};
  const prune: Record<string, boolean> = {};
  for (const k of kinds) {
    const parent = k.hierarchy?.parentKind;
    const own = given[k.kind] ?? (parent !== undefined ? given[parent] : undefined);
    // A kind whose delete is not a deletion (agent tokens are disabled, for good: a disabled token
    // cannot be found again) is pruned only when named, never by a blanket `prune: true`.
    prune[k.kind] = (value.prune === true && k.lifecycle?.deleteMeans === undefined) || own === true;
  }
  const secretLiterals = ((value.secrets as JsonObject | undefined)?.literals ?? 'warn') as SecretLiteralPolicy;
  // Settings the kinds own, as given (each kind applies its own default to one left out).
  const settings: JsonObject = {};
  for (const name of kinds.flatMap((k) => Object.keys(k.rootSettings ?? {}))) if (value[name] !== undefined) settings[name] = value[name];
  const protect = Array.isArray(value.protect) ? value.protect.map(String) : [];
  // A selector whose kind names no kind would protect nothing, silently: prune would delete.
  const kindNames = kinds.map((k) => k.kind);
  protect.forEach((selector, i) => {
    const parts = selector.split('/');
    const candidates = [parts[0], ...(parts.length >= 3 ? [parts[1]] : [])];
    const globbed = (p: string): RegExp => new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    if (candidates.some((c) => kindNames.some((k) => globbed(c).test(k)))) return;
    const kindPart = parts.length >= 3 ? parts[1] : parts[0];
    diagnostics.push({
      severity: 'error',
      code: 'protect-unknown-kind',
      message: `protect selector \`${selector}\` names no kind: it would protect nothing`,
      ...where(`/protect/${i}`),
      hint: didYouMean(kindPart, kindNames) ?? `kinds: ${kindNames.join(', ')}`,
    });
    ok = false;
  });
  const safety = value.safety as SafetySettings | undefined;
  Object.keys(safety?.accounts ?? {}).forEach((name) => {
    if (accounts.some((a) => a.name === name)) return;
    diagnostics.push({
      severity: 'error',
      code: 'account-not-declared',
      message: `safety.accounts names \`${name}\`, which \`accounts\` does not declare`,
      ...where(`/safety/accounts/${escapePointerSegment(name)}`, 'key'),
      hint: didYouMean(name, accounts.map((a) => a.name)) ?? `declared accounts: ${accounts.map((a) => a.name).join(', ')}`,
    });
    ok = false;
  });
  const variables = Array.isArray(value.variables) ? value.variables.map(String) : [];
  variables.forEach((declaration, i) => {
    const problem = declarationProblem(declaration);
    if (problem === undefined) return;
    diagnostics.push({ severity: 'error', code: 'variable-forbidden', message: `variables: ${problem}`, ...where(`/variables/${i}`), hint: 'declare the variables the documents read, by name or by a prefix of their own' });
    ok = false;
  });
  const routing = value.routing === undefined ? undefined : parseRouting(value.routing as JsonObject, accounts, where, diagnostics);
  if (routing === null) ok = false;
  if (!ok) return undefined;
  return {
    file: absFile,
    accounts,
    ...(defaultAccount !== undefined ? { defaultAccount } : {}),
    prune,
    ...(protect.length > 0 ? { protect } : {}),
    secretLiterals,
    settings,
    ...(safety ? { safety } : {}),
    ...(routing ? { routing } : {}),
    variables,
    ...(isServiceValues(value.serviceValues) ? { serviceValues: value.serviceValues } : {}),
  };
}

/** `serviceValues` as the schema lets it through: lists of strings by label. */
function isServiceValues(value: Json | undefined): value is Record<string, string[]> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => Array.isArray(v) && v.every((x) => typeof x === 'string'));
}

/** Pointers of the strings holding a reference (well-formed or not; escapes are text). */
function envReferences(value: Json): string[] {
  const found: string[] = [];
  const path: (string | number)[] = [];
  const walk = (v: Json): void => {
    if (typeof v === 'string') {
      if (hasEnvRef(v) && (envNames(v).length > 0 || malformedEnvRefs(v).length > 0 || hasUnclosedEnvRef(v))) found.push(toPointer(path));
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => {
        path.push(i);
        walk(x);
        path.pop();
      });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        path.push(k);
        walk(x);
        path.pop();
      }
    }
  };
  walk(value);
  return found;
}
