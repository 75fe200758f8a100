// A PredefinedPolicies document's entries against the account's live predefined policies: each
// entry selects one policy by id or every policy carrying a tag; later entries override earlier
// ones member by member; the result is one resource per selected policy, named by its id.

import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type Json, type JsonObject } from '../../model/json.js';
import type { DesiredResource, LiveResource } from '../../model/resource.js';
import type { SourcePosition } from '../../model/diagnostics.js';
import { stringList } from '../common.js';
import { globalNumber } from './records.js';

/** `*` matches any text; everything else is literal. */
export function tagMatches(pattern: string, tag: string): boolean {
  const source = pattern
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(tag);
}

const where = (d: DesiredResource, i: number): Pick<Diagnostic, 'file' | 'line' | 'column'> => {
  const sources = d.context?.sources;
  const pos = Array.isArray(sources) && isObject(sources[i]) ? (sources[i] as unknown as SourcePosition) : d.source;
  return pos ? { file: pos.file, line: pos.line, column: pos.column } : {};
};

export function expandSelection(desired: readonly DesiredResource[], live: readonly LiveResource[], kind: string): { resources: DesiredResource[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const [doc, ...others] = desired;
  if (doc === undefined) return { resources: [], diagnostics };
  for (const other of others) {
    diagnostics.push({
      severity: 'error',
      code: 'duplicate-resource',
      message: `${kind} \`${other.name}\` is a second ${kind} document for account ${other.account} (\`${doc.name}\` is the first): one document holds an account's predefined policy state`,
      ...(other.source ? { file: other.source.file, line: other.source.line, column: other.source.column } : {}),
      hint: 'move its entries into the first document, or narrow its `account`',
    });
  }
  const policies = live.filter((r) => r.kind === kind && r.account === doc.account);
  const state = new Map<string, { spec: JsonObject; entry: number }>();
  const entries = Array.isArray(doc.spec.policies) ? doc.spec.policies : [];
  entries.forEach((raw, i) => {
    if (!isObject(raw)) return;
    const members: JsonObject = {};
    if (raw.enabled !== undefined) members.enabled = raw.enabled;
    if (raw.severity !== undefined) members.severity = raw.severity;
    let selected: LiveResource[];
    if (typeof raw.policy === 'string') {
      const id = raw.policy;
      selected = policies.filter((p) => p.id === id);
      if (selected.length === 0) {
        diagnostics.push({
          severity: 'error',
          code: 'unknown-reference',
          message: `${kind} \`${doc.name}\`: account ${doc.account} has no predefined policy ${id}`,
          ...where(doc, i),
          field: `/spec/policies/${i}/policy`,
          hint: 'predefined policies cannot be created: name one the service lists (`<vendor>-global-<n>`); a custom policy\'s state is set in its Policy document',
        });
      }
    } else if (typeof raw.tag === 'string') {
      const tag = raw.tag;
      selected = policies.filter((p) => stringList(p.info?.tags).some((t) => tagMatches(tag, t)));
      if (selected.length === 0) {
        diagnostics.push({
          severity: 'warning',
          code: 'selector-matches-nothing',
          message: `${kind} \`${doc.name}\`: no predefined policy of account ${doc.account} carries the tag ${JSON.stringify(tag)}; the entry changes nothing`,
          ...where(doc, i),
          field: `/spec/policies/${i}/tag`,
          hint: `tags look like ${[...new Set(policies.flatMap((p) => stringList(p.info?.tags)))].sort().slice(0, 3).join(', ') || 'framework:<name>'}`,
        });
      }
    } else return;
    for (const p of selected) {
      const before = state.get(p.id)?.spec ?? {};
      state.set(p.id, { spec: { ...before, ...members }, entry: i });
    }
  });
  const resources = [...state]
    .sort((a, b) => globalNumber(a[0]) - globalNumber(b[0]) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([id, { spec, entry }]): DesiredResource => {
      const pos = where(doc, entry);
      return {
        kind,
        account: doc.account,
        name: id,
        spec,
        envRefs: {},
        ...(pos.file !== undefined ? { source: { file: pos.file, line: pos.line ?? 1, column: pos.column ?? 1 } } : {}),
        ...(doc.lifecycle ? { lifecycle: structuredClone(doc.lifecycle) } : {}),
      };
    });
  return { resources, diagnostics };
}

/** An entry's members in their canonical form (severity lower case, enabled a boolean). */
export type Entry = { policy?: string; tag?: string; enabled?: boolean; severity?: string };
export const entryJson = (e: Entry): JsonObject => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)) as Record<string, Json>;
