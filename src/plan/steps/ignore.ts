// Step "ignore": `lifecycle.ignoreChanges` names members of a spec that someone else owns. For a
// declared resource with a live twin, the desired spec takes the live value at each of those pointers
// (or leaves the member out where the live resource has none), so the diff finds nothing there and an
// update sends the live value back. A create has no live value: the file's value is sent.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { JsonObject } from '../../model/json.js';
import { getAt, isWithin, removeAt, setAt } from '../../model/json-pointer.js';
import { at, type Match } from './shared.js';
import { emptyPointers, isMaskedValue, maskedPointers } from '../../model/secret-detection.js';

export interface Ignored {
  readonly matches: readonly Match[];
  readonly diagnostics: readonly Diagnostic[];
}

export function ignoreChanges(matches: readonly Match[]): Ignored {
  const diagnostics: Diagnostic[] = [];
  const out = matches.map((m) => {
    const pointers = m.desired.lifecycle?.ignoreChanges ?? [];
    if (pointers.length === 0 || !m.live) return m;
    // A secret taken from the live state would have to be carried in the plan; refuse rather than leak.
    const secrets = (m.kind.secrets?.secretMembers?.(m.desired.spec) ?? []).map((s) => s.pointer);
    const secret = pointers.filter((p) => secrets.some((s) => isWithin(s, p) || isWithin(p, s)));
    if (secret.length > 0) {
      diagnostics.push({
        severity: 'error',
        code: 'ignore-secret',
        message: `${m.desired.kind} ${m.desired.name}: lifecycle.ignoreChanges names the secret member ${secret.join(', ')}, whose live value a plan may not carry`,
        ...at(m.desired),
        field: '/lifecycle/ignoreChanges',
        hint: 'give the secret as ${env:NAME} instead, or ignore the members next to it',
      });
      return m;
    }
    let spec: JsonObject = m.desired.spec;
    for (const pointer of pointers) {
      if (pointer === '') continue;
      // What the service showed masked or empty is not its value: the member is left out whole rather
      // than sent back (the rule of the live rest, withoutWithheld: never a list or object with a hole).
      const live = getAt(m.live.spec, pointer);
      const hidden = live === undefined || live === '' || isMaskedValue(live) || maskedPointers(live, pointer).length > 0 || emptyPointers(live, pointer).length > 0;
      spec = hidden ? removeAt(spec, pointer) : setAt(spec, pointer, structuredClone(live));
    }
    const envRefs = Object.fromEntries(Object.entries(m.desired.envRefs).filter(([p]) => !pointers.some((i) => isWithin(p, i))));
    return { ...m, desired: { ...m.desired, spec, envRefs } };
  });
  return { matches: out, diagnostics };
}
