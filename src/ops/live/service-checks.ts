// Checks the service makes at plan time (Kind.serviceCheck: a query's `validate` endpoint): one
// request per change that creates or changes a resource of such a kind, sent after the plan is made.
// A refusal is a diagnostic that says where the resource is declared, not an error of the run. The
// pre-flight counts one request per declared resource of those kinds (serviceCheckGroups).

import { ApiError, type ApiClient } from '../../api/types.js';
import { bucketOf } from '../../api/buckets.js';
import { type AccountConfig, type DesiredState, requestTarget } from '../../model/account.js';
import type { Diagnostic } from '../../model/diagnostics.js';
import { inertText } from '../../model/inert.js';
import type { Plan } from '../../model/plan.js';
import type { Kind, RequestContext } from '../../kinds/types.js';

/** The checks' requests as pre-flight groups (RequestGroup): one per declared resource of a checked kind in `accounts`. */
export function serviceCheckGroups(
  desired: Pick<DesiredState, 'resources'>,
  accounts: readonly AccountConfig[],
  kinds: readonly Kind[],
): { buckets: string[]; requests: number }[] {
  const counts = new Map<string, number>();
  const names = new Set(accounts.map((a) => a.name));
  for (const r of desired.resources) {
    const kind = kinds.find((k) => k.kind === r.kind);
    if (!kind?.serviceCheck || !names.has(r.account)) continue;
    const req = kind.serviceCheck.request(r, { account: r.account, orgAccess: false, resolve: (_kind, name) => name });
    const bucket = bucketOf(req.method, req.path);
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([bucket, requests]) => ({ buckets: [bucket], requests }));
}

/** Asks the service about every resource `plan` creates or changes whose kind has a check; what it refuses, as errors. */
export async function serviceChecks(client: ApiClient, plan: Pick<Plan, 'changes' | 'accounts'>, desired: Pick<DesiredState, 'resources'>, kinds: readonly Kind[]): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  for (const change of plan.changes) {
    if (change.action === 'delete') continue;
    const kind = kinds.find((k) => k.kind === change.kind);
    const check = kind?.serviceCheck;
    if (!check) continue;
    const resource = desired.resources.find((r) => r.account === change.account && r.kind === change.kind && r.name === change.name);
    if (!resource) continue;
    const target = requestTarget(change.account, plan.accounts);
    const ctx: RequestContext = { account: change.account, orgAccess: target.orgAccess === true, resolve: (_kind, name) => name };
    const request = { ...check.request(resource, ctx), ...target };
    let verdict: string | undefined;
    try {
      const res = await client.request(request);
      verdict = check.verdict({ status: res.status, body: res.body });
    } catch (err) {
      // A refusal is the answer; anything else (the service unreachable, a 5xx) fails the run.
      if (!(err instanceof ApiError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429)) throw err;
      verdict = check.verdict({ status: err.status, ...(err.serviceMessage !== undefined ? { message: err.serviceMessage } : {}) });
    }
    if (verdict === undefined) continue;
    diagnostics.push({
      severity: 'error',
      code: 'service-check-failed',
      // The service's words are outside text: made inert, and cut.
      message: `${change.kind} ${change.name} in account ${change.account}: the service refuses it: ${inertText(verdict).slice(0, 300)}`,
      ...(resource.source ? { file: resource.source.file, line: resource.source.line, column: resource.source.column } : {}),
    });
  }
  return diagnostics;
}
