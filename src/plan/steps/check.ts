// Step "check": the problems a kind can find only against live state (a template's placeholders
// against its live profile). Run for every declared resource of a known kind, whether or not it
// can be matched, so one run reports every mistake.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { DesiredResource } from '../../model/resource.js';
import type { Kind, KindSettings } from '../../kinds/types.js';
import type { LiveIndex } from './live-index.js';
import { kindsByName } from './shared.js';

export function checkAgainstLive(desired: readonly DesiredResource[], kinds: readonly Kind[], index: LiveIndex, settings: KindSettings = {}): Diagnostic[] {
  const kindOf = kindsByName(kinds);
  return desired.flatMap((d) => kindOf.get(d.kind)?.check?.(d, index.byAccount.get(d.account) ?? [], settings) ?? []);
}
