// The root settings an export must write so that its folder reads the account as the service shows
// it. Today one: the vendor prefix of the predefined alert profiles. The tool's default is SVC_; the
// real service's is LW_. Export reads live state without a root file, so its kinds classified the
// profiles by the default; on an account with another prefix its predefined profiles would be
// exported as custom ones, and its custom profiles (which extend them) would fail validation.
//
// Detection (detectPrefix, beside the kind's ids, which the apply lease uses too) reads the service's
// own structure rather than names.
//
// The setting is the kind's (Kind.rootSettings); which kind owns it is found in the registry by the
// setting's name, so nothing here names a kind.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { JsonObject } from '../../model/json.js';
import type { LiveResource } from '../../model/resource.js';
import { detectPrefix, PREDEFINED_PROFILE_PREFIX, PREFIX_SETTING } from '../../kinds/alert-profile/ids.js';
import type { Kind } from '../../kinds/types.js';

export interface LiveSettings {
  /** Settings that differ from their defaults, for postureops.yaml and for the export's own checks. */
  settings: JsonObject;
  /** The live resources, re-classified under those settings (which are the service's own). */
  resources: LiveResource[];
  diagnostics: Diagnostic[];
}

/**
 * The settings the live state of `accounts` shows, and the resources classified under them. With
 * the default prefix nothing changes. Accounts that disagree: the first account's prefix is written
 * (one setting per repository) and a warning names the others; their custom profiles then fail the
 * export's checks and are left out, each with its reason.
 */
export function liveSettings(resources: readonly LiveResource[], kinds: readonly Kind[], accounts: readonly string[]): LiveSettings {
  const owner = kinds.find((k) => k.rootSettings !== undefined && Object.hasOwn(k.rootSettings, PREFIX_SETTING));
  const unchanged = { settings: {}, resources: [...resources], diagnostics: [] };
  if (owner === undefined) return unchanged;
  const found = new Map<string, string>();
  for (const account of accounts) {
    const nodes = resources
      .filter((r) => r.kind === owner.kind && r.account === account)
      .map((r) => ({ name: r.name, ...(typeof r.spec.extends === 'string' && r.spec.extends !== '' ? { parent: r.spec.extends } : {}) }));
    const prefix = detectPrefix(nodes);
    if (prefix !== undefined) found.set(account, prefix);
  }
  const prefix = found.values().next().value;
  if (prefix === undefined || prefix === PREDEFINED_PROFILE_PREFIX) {
    return { ...unchanged, diagnostics: disagreements(found, prefix ?? PREDEFINED_PROFILE_PREFIX) };
  }
  const children = new Set(kinds.filter((k) => k.hierarchy?.parentKind === owner.kind).map((k) => k.kind));
  // The kinds classified by the default prefix; under the service's own one, a profile (and its
  // templates) is the service's exactly when its id carries it.
  const reclassified = resources.map((r) => {
    const id = r.kind === owner.kind ? r.name : children.has(r.kind) ? r.parent : undefined;
    if (id === undefined) return r;
    const out: LiveResource = { ...r };
    if (id.startsWith(prefix)) out.managedByService = true;
    else delete out.managedByService;
    return out;
  });
  return {
    settings: { [PREFIX_SETTING]: prefix },
    resources: reclassified,
    diagnostics: disagreements(found, prefix),
  };
}

function disagreements(found: ReadonlyMap<string, string>, prefix: string): Diagnostic[] {
  return [...found]
    .filter(([, p]) => p !== prefix)
    .map(([account, p]) => ({
      severity: 'warning' as const,
      code: 'export-setting-conflict',
      message: `account ${account}: its predefined alert profiles carry the prefix ${p}, not ${prefix} as the first account's do; one repository has one ${PREFIX_SETTING}`,
      hint: `export account ${account} into a repository of its own`,
    }));
}
