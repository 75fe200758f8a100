// Step "resolve references": for every declared resource, changed or not, the names it refers to
// with the live id each keeps through this plan. A reference to nothing, to something this plan
// prunes, or to a name several live resources share is an error now rather than a failed apply; but
// an id the live resource already holds though the account lists nothing with it is kept as the id.

import type { Diagnostic } from '../../model/diagnostics.js';
import { getAt } from '../../model/json-pointer.js';
import { referencedNames } from '../core/order.js';
import { type LiveIndex, livesAt } from './live-index.js';
import { at, type Decision, type Decisions, type Deletion, type Ref } from './shared.js';
import { type DesiredResource, placeOf, resourceKey } from '../../model/resource.js';

export interface Resolved {
  /** Per declared key, its references in the kind's order; empty when it names nothing. */
  readonly refs: ReadonlyMap<string, readonly Ref[]>;
  readonly diagnostics: readonly Diagnostic[];
}

export function resolveReferences(decisions: Decisions, index: LiveIndex, deletions: readonly Deletion[]): Resolved {
  const deleted = new Set(deletions.map((x) => resourceKey(x.live.account, x.live.kind, x.live.name)));
  const refs = new Map<string, readonly Ref[]>();
  const diagnostics: Diagnostic[] = [];
  for (const [key, decision] of decisions) refs.set(key, refsOf(decision, decisions, index, deleted, diagnostics));
  return { refs, diagnostics };
}

/** Where a reference's problem points; built only for a diagnostic (most references have none). */
const problemAt = (d: DesiredResource, pointer: string, name: string): Pick<Diagnostic, 'field' | 'file' | 'line' | 'column'> => ({
  field: pointer,
  ...(placeOf(d, pointer, name) ?? at(d)),
});

function refsOf(decision: Decision, decisions: Decisions, index: LiveIndex, deleted: ReadonlySet<string>, diagnostics: Diagnostic[]): Ref[] {
  const d = decision.desired;
  const refs: Ref[] = [];
  for (const ref of (decision.kind.references ?? [])) {
    for (const name of referencedNames(d.spec, ref.pointer)) {
      const key = resourceKey(d.account, ref.kind, name);
      const target = decisions.get(key);
      const lives = livesAt(index, key);
      if (!target && lives.length === 0 && decision.live !== undefined && referencedNames(decision.live.spec, ref.pointer).includes(name)) {
        // The live resource holds this very value: an id the service keeps though it lists no such
        // resource (the live read left it unmapped). Kept as the id: the plan neither changes nor
        // refuses what the service holds.
        diagnostics.push({
          severity: 'warning',
          code: 'reference-kept-as-id',
          message: `${d.kind} ${d.name} names ${ref.kind} ${name}, which account ${d.account} does not list; the service holds it as an id: kept as written`,
          ...problemAt(d, ref.pointer, name),
          hint: `remove it from the ${d.kind} if the ${ref.kind} is gone, or declare the ${ref.kind}`,
        });
        refs.push({ kind: ref.kind, name, id: name });
        continue;
      }
      if (!target && lives.length === 0) {
        diagnostics.push({
          severity: 'error',
          code: 'unknown-reference',
          message: `${d.kind} ${d.name} refers to ${ref.kind} ${name}, which is neither declared nor live in account ${d.account}`,
          ...problemAt(d, ref.pointer, name),
          hint: `declare the ${ref.kind} or remove it from the ${d.kind}`,
        });
        continue;
      }
      if (!target && deleted.has(key)) {
        diagnostics.push({
          severity: 'error',
          code: 'reference-to-deleted',
          message: `${d.kind} ${d.name} refers to ${ref.kind} ${name}, which this plan deletes (not declared, prune is on)`,
          ...problemAt(d, ref.pointer, name),
          hint: `declare the ${ref.kind} or remove it from the ${d.kind}`,
        });
        continue;
      }
      if (!target && lives.length > 1) {
        diagnostics.push({
          severity: 'error',
          code: 'ambiguous-live-name',
          message: `${d.kind} ${d.name} refers to ${ref.kind} ${name}, a name ${lives.length} live resources share in account ${d.account} (ids ${lives
            .map((l) => l.id)
            .sort()
            .join(', ')})`,
          ...problemAt(d, ref.pointer, name),
        });
        continue;
      }
      // A reference that takes only some of its kind's resources (EmailUser channels): the target as declared, else as live.
      const only = ref.only;
      // Stryker disable next-line OptionalChaining: without a declared target, the checks above left exactly one live resource
      const targetSpec = target ? target.desired.spec : lives[0]?.spec;
      const actual = only && targetSpec ? getAt(targetSpec, only.member) : undefined;
      if (only && typeof actual === 'string' && !only.values.includes(actual)) {
        diagnostics.push({
          severity: 'error',
          code: 'reference-not-allowed',
          message: `${d.kind} ${d.name} refers to ${ref.kind} ${name}, whose ${only.member.slice(1)} is ${actual}; a ${d.kind} takes only ${only.values.join(', ')}`,
          ...problemAt(d, ref.pointer, name),
          hint: `name a ${ref.kind} whose ${only.member.slice(1)} is ${only.values.join(' or ')}`,
        });
        continue;
      }
      // A replaced or created target has its id only once apply has run its change.
      const keepsId = !target || target.action === undefined || target.action === 'update';
      const id = keepsId && lives.length === 1 ? lives[0].id : undefined;
      refs.push({ kind: ref.kind, name, ...(id !== undefined ? { id } : {}) });
    }
  }
  for (const ref of decision.kind.memberReferences ?? []) {
    const value = getAt(d.spec, ref.pointer);
    if (typeof value !== 'string') continue;
    const dot = value.indexOf('.');
    const [name, member] = dot > 0 ? [value.slice(0, dot), value.slice(dot + 1)] : [value, ''];
    const key = resourceKey(d.account, ref.kind, name);
    const target = decisions.get(key);
    const lives = livesAt(index, key);
    if ((!target && lives.length !== 1) || member === '') {
      diagnostics.push({
        severity: 'error',
        code: 'unknown-reference',
        message:
          member === ''
            ? `${d.kind} ${d.name} names ${JSON.stringify(value)}, which is not <${ref.kind}>.<${ref.label}>`
            : `${d.kind} ${d.name} refers to ${ref.kind} ${name}, which is ${lives.length > 1 ? `a name ${lives.length} live resources share` : 'neither declared nor live'} in account ${d.account}`,
        ...problemAt(d, ref.pointer, value),
        hint: `write the ${ref.label} as <${ref.kind} name>.<${ref.label} name>`,
      });
      continue;
    }
    // The members the resource offers as this plan leaves it: as declared, else as live.
    const spec = target ? target.desired.spec : lives[0].spec;
    const children = target
      ? [...decisions.values()].filter((x) => x.desired.account === d.account && x.desired.parent === name).map((x) => ({ name: x.desired.name, spec: x.desired.spec }))
      : (index.byAccount.get(d.account) ?? []).filter((r) => r.parent === lives[0].id && r.kind !== ref.kind).map((r) => ({ name: r.name, spec: r.spec }));
    const offered = ref.members(spec, children);
    if (!offered.includes(member)) {
      diagnostics.push({
        severity: 'error',
        code: 'unknown-reference',
        message: `${d.kind} ${d.name} refers to ${ref.label} ${JSON.stringify(member)} of ${ref.kind} ${name}, which has no such ${ref.label}`,
        ...problemAt(d, ref.pointer, value),
        hint: offered.length > 0 ? `its ${ref.label}s: ${offered.slice(0, 10).join(', ')}` : `${ref.kind} ${name} has no ${ref.label}`,
      });
      continue;
    }
    const keepsId = !target || target.action === undefined || target.action === 'update';
    const id = keepsId && lives.length === 1 ? lives[0].id : undefined;
    refs.push({ kind: ref.kind, name, ...(id !== undefined ? { id } : {}) });
  }
  return refs;
}
