// `postureops test-channels`: the service's test of chosen live resources (an alert channel's test
// notification), one request each, without applying anything. What the service answers is its own
// text: the resource's secrets it holds in clear are masked before the text goes anywhere.

import { ApiError, type ApiClient } from '../../api/types.js';
import { requestTarget, type AccountConfig } from '../../model/account.js';
import { getAt } from '../../model/json-pointer.js';
import { Redactor } from '../../model/masking.js';
import type { LiveResource } from '../../model/resource.js';
import { WITHHELD } from '../../model/secret-detection.js';
import type { Kind } from '../../kinds/types.js';

/** One resource tested: whether the service's test succeeded, and its words when it did not. */
export interface TestOutcome {
  account: string;
  kind: string;
  name: string;
  id: string;
  ok: boolean;
  message?: string;
}

/** Tests `resources` in order (each kind's test request); a refusal is an outcome, not an error. */
export async function testResources(client: ApiClient, resources: readonly LiveResource[], kinds: readonly Kind[], accounts: readonly AccountConfig[]): Promise<TestOutcome[]> {
  const out: TestOutcome[] = [];
  for (const r of resources) {
    const kind = kinds.find((k) => k.kind === r.kind);
    const test = kind?.lifecycle?.testRequest;
    if (!kind || !test) continue;
    const ctx = { account: r.account, orgAccess: requestTarget(r.account, accounts).orgAccess === true, resolve: () => r.id };
    const base = { account: r.account, kind: r.kind, name: r.name, id: r.id };
    try {
      await client.request(test(r.serviceId ?? r.id, ctx));
      out.push({ ...base, ok: true });
    } catch (err) {
      const text = err instanceof ApiError && err.serviceMessage ? err.serviceMessage : err instanceof Error ? err.message : String(err);
      out.push({ ...base, ok: false, message: heldSecrets(kind, r).redact(text) });
    }
  }
  return out;
}

/** The secrets a live record holds in clear (a Slack URL comes back): the service may echo them. */
function heldSecrets(kind: Kind, r: LiveResource): Redactor {
  const pointers = [...(kind.secrets?.sensitive?.(r.spec) ?? []), ...(kind.secrets?.writeOnly?.(r.spec) ?? [])];
  const values = pointers.map((p) => getAt(r.spec, p)).filter((v): v is string => typeof v === 'string' && v !== WITHHELD);
  return new Redactor({ mask: WITHHELD }, values);
}
