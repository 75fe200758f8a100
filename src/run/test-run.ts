// `test-channels`: the live alert channels that `--target` names, tested through the service without
// applying anything. Two pre-flights: the lists before the read, then the tests once the read says
// how many channels the selectors name (a test spends budget like any other request).

import { chosenTestGroups, readGroups } from '../ops/budget/preflight.js';
import { testResources, type TestOutcome } from '../ops/apply/test-channels.js';
import { parseSelector, selects } from '../plan/core/selectors.js';
import { KINDS } from '../kinds/index.js';
import type { Kind } from '../kinds/types.js';
import type { AccountConfig } from '../model/account.js';
import type { JsonObject } from '../model/json.js';
import { RunError } from './errors.js';
import { type ReadHooks, readLive } from './read.js';
import { Run, type RunSetup } from './run.js';

export type { TestOutcome } from '../ops/apply/test-channels.js';

export interface TestChannelsRequest {
  accounts: AccountConfig[];
  /** `[account/]Kind/name` selectors (globs allowed), as `--target` takes them. */
  targets: readonly string[];
  settings?: JsonObject;
}

/** The kinds the service tests (alert channels). */
export function testableKinds(kinds: readonly Kind[] = KINDS): Kind[] {
  return kinds.filter((k) => k.lifecycle?.testRequest !== undefined);
}

export async function testChannelsRun(setup: RunSetup, request: TestChannelsRequest, hooks: ReadHooks = {}): Promise<TestOutcome[]> {
  const kinds = testableKinds();
  const run = Run.open(setup);
  try {
    const kindsOf = (): readonly Kind[] => kinds;
    await run.preflight(readGroups(request.accounts, kindsOf), 'read');
    const live = await readLive(run, request.accounts, { ...(request.settings ? { settings: request.settings } : {}), kindsOf }, hooks);
    const selectors = request.targets.map(parseSelector);
    const chosen = live.resources.filter((r) => kinds.some((k) => k.kind === r.kind) && selectors.some((s) => selects(s, r.account, r.kind, r.name)));
    if (chosen.length === 0) {
      throw new RunError({ kind: 'scope', message: `--target ${request.targets.join(', ')}: no live ${kinds.map((k) => k.kind).join(' or ')} of ${request.accounts.map((a) => a.name).join(', ')} matches` });
    }
    await run.preflight(kinds.flatMap((k) => chosenTestGroups(k, chosen.filter((r) => r.kind === k.kind).length)), 'test');
    return await testResources(run.client, chosen, kinds, request.accounts);
  } finally {
    await run.close();
  }
}
