// Step "ids for names": a file may give a reference as the service's id (a resource group GUID
// copied from the console) rather than by name. Where a value is neither declared nor a live name of
// the referenced kind in the account, but is the id of exactly one live resource of that kind, it
// stands for that resource's name: the plan compares and sends the same as if the name were written,
// and a warning names the resource so that the file can say it.

import type { Diagnostic } from '../../model/diagnostics.js';
import { getAt, setAt } from '../../model/json-pointer.js';
import type { Json } from '../../model/json.js';
import type { DesiredResource } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import { type LiveIndex, livesAt } from './live-index.js';
import { at, kindsByName } from './shared.js';
import { resourceKey } from '../../model/resource.js';

export function namesForIds(desired: readonly DesiredResource[], kinds: readonly Kind[], index: LiveIndex): { desired: DesiredResource[]; diagnostics: Diagnostic[] } {
  const kindOf = kindsByName(kinds);
  const declared = new Set(desired.map((d) => resourceKey(d.account, d.kind, d.name)));
  const diagnostics: Diagnostic[] = [];
  const out = desired.map((d) => {
    let spec = d.spec;
    for (const ref of (kindOf.get(d.kind)?.references ?? []) ?? []) {
      const value = getAt(spec, ref.pointer);
      const nameFor = (v: Json): Json => {
        // Stryker disable next-line ConditionalExpression: a value that is not text names no key and is no live id
        if (typeof v !== 'string') return v;
        const key = resourceKey(d.account, ref.kind, v);
        if (declared.has(key) || livesAt(index, key).length > 0) return v;
        // Stryker disable next-line ArrayDeclaration: a text is no live resource with the kind and id asked for
        const owners = (index.byAccount.get(d.account) ?? []).filter((l) => l.kind === ref.kind && l.id === v);
        if (owners.length !== 1) return v;
        diagnostics.push({
          severity: 'warning',
          code: 'reference-by-id',
          message: `${d.kind} ${d.name} names ${ref.kind} ${v} by its id: that is ${ref.kind} "${owners[0].name}"`,
          ...at(d),
          field: `/spec${ref.pointer}`,
          hint: `write the name "${owners[0].name}" instead of the id`,
        });
        return owners[0].name;
      };
      if (typeof value === 'string') {
        const name = nameFor(value);
        if (name !== value) spec = setAt(spec, ref.pointer, name);
      } else if (Array.isArray(value)) {
        // Copied only from the first value that stands for another name (most lists hold names only).
        let names: Json[] | undefined;
        for (let i = 0; i < value.length; i++) {
          const name = nameFor(value[i]);
          if (name !== value[i]) (names ??= value.slice(0, i)).push(name);
          else names?.push(name);
        }
        if (names) spec = setAt(spec, ref.pointer, names);
      }
    }
    return spec === d.spec ? d : { ...d, spec };
  });
  return { desired: out, diagnostics };
}
