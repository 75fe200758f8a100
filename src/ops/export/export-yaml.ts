// The export's file formatting: fixed options and key order, so the same live state always gives
// the same bytes (and a clean git diff when it changes).

import { stringify } from 'yaml';
import type { AccountConfig } from '../../model/account.js';
import type { Json, JsonObject } from '../../model/json.js';
import { compareText } from '../../model/compare.js';
import { escapeEnv } from '../../model/env.js';

export const ROOT_FILE = 'postureops.yaml';
export const SECRETS_FILE = 'SECRETS.md';

const YAML_OPTIONS = { lineWidth: 0, minContentWidth: 0, indent: 2, aliasDuplicateObjects: false } as const;

export interface FileDocument {
  kind: string;
  name: string;
  account: string;
  spec: JsonObject;
}

/** Object keys sorted at every depth; arrays keep their order. */
/** Members a reader looks for first stand first (a spec's type, a template's name); the rest sorted. */
const LEADING_KEYS = ['name', 'type', 'enabled', 'extends'];

function compareKeys(a: string, b: string): number {
  const ia = LEADING_KEYS.indexOf(a);
  const ib = LEADING_KEYS.indexOf(b);
  if (ia !== -1 || ib !== -1) return (ia === -1 ? LEADING_KEYS.length : ia) - (ib === -1 ? LEADING_KEYS.length : ib);
  return compareText(a, b);
}

export function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort(compareKeys)) out[key] = sortKeys(value[key]);
  return out;
}

/** Every string of a live value escaped (`${env:` → `$${env:`): the loader reads it back as the same text, never as a reference. */
export function escapeLiveText(value: Json): Json {
  if (typeof value === 'string') return escapeEnv(value);
  if (Array.isArray(value)) return value.map(escapeLiveText);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = escapeLiveText(v);
  return out;
}

/**
 * One multi-document YAML file: `kind`, `name`, `account`, `spec` in that order, spec keys in a
 * fixed order. Names are the service's text: escaped (specs are escaped before secrets become references).
 */
export function documentsFile(docs: readonly FileDocument[]): string {
  return docs
    .map((d) => stringify({ kind: d.kind, name: escapeEnv(d.name), account: d.account, spec: sortKeys(d.spec) }, YAML_OPTIONS))
    .join('---\n');
}

/**
 * postureops.yaml: the accounts in the given order, the first as default, nothing pruned, and the
 * settings the live state shows where they differ from the defaults (a vendor's profile prefix).
 */
export function rootFile(accounts: readonly AccountConfig[], settings: Readonly<JsonObject> = {}, variables: readonly string[] = []): string {
  const root = {
    accounts: accounts.map((a) => (a.orgAccess ? { name: a.name, orgAccess: true } : { name: a.name })),
    defaults: { account: accounts[0].name },
    prune: false,
    // The variables the exported documents read (SECRETS.md says what each holds).
    ...(variables.length > 0 ? { variables: [...variables].sort(compareText) } : {}),
    ...(sortKeys(settings as JsonObject) as JsonObject),
  };
  const note = Object.keys(settings).length > 0 ? '# Settings below `prune` are what the live service shows (not the defaults).\n' : '';
  return '# Exported by postureops from the live service.\n' + note + stringify(root, YAML_OPTIONS);
}

/** `AlertChannel` → `alert-channels`, `ContainerRegistry` → `container-registries`. */
export function kindFileStem(kind: string): string {
  const kebab = kind
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
  // A kind named in the plural already (PredefinedPolicies) keeps its name.
  if (/ies$/.test(kebab)) return kebab;
  if (/[^aeiou]y$/.test(kebab)) return kebab.slice(0, -1) + 'ies';
  if (/(s|x|z|ch|sh)$/.test(kebab)) return kebab + 'es';
  return kebab + 's';
}

/** A folder name for each account: its name where that is a safe path segment, unique in the export. */
export function accountFolders(accounts: readonly AccountConfig[]): Map<string, string> {
  const folders = new Map<string, string>();
  // Case-insensitive, for file systems that are; the export's own files are taken.
  const used = new Set([ROOT_FILE.toLowerCase(), SECRETS_FILE.toLowerCase()]);
  for (const { name } of accounts) {
    let base = name.replace(/[^A-Za-z0-9._-]+/g, '_');
    if (base === '' || base.startsWith('.')) base = '_' + base;
    let folder = base;
    for (let n = 2; used.has(folder.toLowerCase()); n++) folder = `${base}-${n}`;
    used.add(folder.toLowerCase());
    folders.set(name, folder);
  }
  return folders;
}
