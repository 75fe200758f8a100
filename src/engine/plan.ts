// plan(desired, live) → Plan: pure and deterministic. Matches by (account, kind, name), diffs through
// the kinds, folds children into their parent's create, orders, and checks safety and budget.
// Nothing here switches on a kind's name.

import type { BucketBudget } from '../api/types.js';
import { type CallStats, type Action, type Change, type Plan, PLAN_FORMAT_VERSION, type Refusal, type UnmanagedResource } from '../model/plan.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import { type Diagnostic, hasErrors, sortDiagnostics } from '../model/diagnostics.js';
import { KINDS } from '../kinds/index.js';
import type { DesiredResource, LiveResource } from '../model/resource.js';
import type { Kind } from '../kinds/types.js';
import { parsePointer } from '../model/json-pointer.js';
import { budgetNeeds } from './budget.js';
import { liveDigest } from './digest.js';
import { desiredView, diffResource, liveView, type ResourceDiff } from './diff.js';
import { orderChanges, type PlannedChange, referencedNames, resourceKey } from './order.js';
import { inUseRefusal, safetyRefusal } from './safety.js';
import { parseSelector, selects } from './selectors.js';
import { type LiveState } from './types.js';

export interface PlanOptions {
  /** The kinds, in registry order (the order's tie-break); default: the registry `KINDS`. */
  kinds?: readonly Kind[];
  /** Only these accounts (names); all accounts of the root when absent. */
  accounts?: string[];
  /** Plan without a refusal even over a safety threshold or with resources still in use. */
  force?: boolean;
  /** `[account/]Kind/name` selectors (`*` within a part) whose write-only secrets are pushed. */
  rotate?: string[];
  /** Rate-limit budget known from the client (`client.budget()`). */
  budget?: BucketBudget[];
  /** Requests made to compute the plan (`live.calls` or more). */
  apiCalls?: CallStats;
}

export interface PlanResult {
  /** Absent when an error diagnostic was found. */
  plan?: Plan;
  /** Errors and warnings, sorted. */
  diagnostics: Diagnostic[];
}

interface Decision {
  desired: DesiredResource;
  kind: Kind;
  live?: LiveResource;
  diff?: ResourceDiff;
  action?: Action;
  rotate: boolean;
  reason?: string;
  /** Folded into the parent's create or replace. */
  folded: boolean;
  children: Decision[];
  refs: NonNullable<Change['refs']>;
}

const at = (d: DesiredResource): Pick<Diagnostic, 'file' | 'line' | 'column'> =>
  d.source ? { file: d.source.file, line: d.source.line, column: d.source.column } : {};

export function plan(desired: DesiredState, live: LiveState, options: PlanOptions): PlanResult {
  const diagnostics: Diagnostic[] = [...(live.diagnostics ?? [])];
  const kinds = options.kinds ?? KINDS;
  const kindByName = new Map(kinds.map((k) => [k.kind, k]));

  // Scope.
  const rootNames = desired.root.accounts.map((a) => a.name);
  for (const name of options.accounts ?? []) {
    if (!rootNames.includes(name)) {
      diagnostics.push({
        severity: 'error',
        code: 'unknown-account',
        message: `account ${name} is not one of the accounts of ${desired.root.file}`,
        file: desired.root.file,
        hint: `expected one of: ${rootNames.join(', ')}`,
      });
    }
  }
  const accounts: AccountConfig[] = desired.root.accounts
    .filter((a) => !options.accounts || options.accounts.includes(a.name))
    .map((a) => ({ name: a.name, orgAccess: a.orgAccess }));
  const accountOrder = accounts.map((a) => a.name);
  const inScope = new Set(accountOrder);
  const fetched = new Set(live.accounts.map((a) => a.name));
  for (const name of accountOrder) {
    if (!fetched.has(name)) {
      diagnostics.push({ severity: 'error', code: 'account-not-fetched', message: `the live state holds no data of account ${name}` });
    }
  }

  const desiredIn = desired.resources.filter((r) => inScope.has(r.account));
  const liveIn = live.resources.filter((r) => inScope.has(r.account));
  const desiredByKey = new Map(desiredIn.map((d) => [resourceKey(d.account, d.kind, d.name), d]));
  const liveByKey = new Map<string, LiveResource[]>();
  const liveByAccount = new Map<string, LiveResource[]>();
  const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const r of liveIn) {
    push(liveByKey, resourceKey(r.account, r.kind, r.name), r);
    push(liveByAccount, r.account, r);
  }

  const selectors = (options.rotate ?? []).map(parseSelector);
  const rotated = new Set<string>();

  // Desired resources: match, check, diff.
  const decisions = new Map<string, Decision>();
  for (const d of desiredIn) {
    const kind = kindByName.get(d.kind);
    if (!kind) {
      diagnostics.push({ severity: 'error', code: 'unknown-kind', message: `${d.kind} is not a registered kind`, ...at(d) });
      continue;
    }
    diagnostics.push(...(kind.check?.(d, liveByAccount.get(d.account) ?? []) ?? []));
    const key = resourceKey(d.account, d.kind, d.name);
    const matches = liveByKey.get(key) ?? [];
    if (matches.length > 1) {
      diagnostics.push({
        severity: 'error',
        code: 'ambiguous-live-name',
        message: `${d.kind} ${d.name} in account ${d.account} matches ${matches.length} live resources (ids ${matches
          .map((m) => m.id)
          .sort()
          .join(', ')}); names must be unique to be managed`,
        ...at(d),
        hint: 'rename or delete all but one of them in the service',
      });
      continue;
    }
    const match = matches[0];
    if (match?.managedByService) {
      diagnostics.push({
        severity: 'error',
        code: 'managed-by-service',
        message: `${d.kind} ${d.name} in account ${d.account} is predefined by the service and cannot be managed`,
        ...at(d),
      });
      continue;
    }
    const wantsRotation = selectors.some((s) => selects(s, d.account, d.kind, d.name)) && kind.writeOnly(d.spec).length > 0;
    if (wantsRotation) selectors.forEach((s) => selects(s, d.account, d.kind, d.name) && rotated.add(s.text));
    const decision: Decision = { desired: d, kind, live: match, rotate: false, folded: false, children: [], refs: [] };
    if (!match) decision.action = 'create';
    else {
      decision.diff = diffResource(kind, d, match, wantsRotation);
      if (decision.diff.replace) {
        decision.action = 'replace';
        decision.reason = `${decision.diff.changed.filter((m) => kind.replaceOn.includes(m)).join(', ')} cannot be changed in place`;
      } else if (decision.diff.changed.length > 0) {
        decision.action = 'update';
        decision.rotate = wantsRotation;
      }
    }
    decisions.set(key, decision);
  }
  for (const s of selectors) {
    if (!rotated.has(s.text)) {
      diagnostics.push({
        severity: 'warning',
        code: 'rotate-no-match',
        message: `--rotate ${s.text} selects no declared resource with write-only secrets`,
        hint: 'selectors look like [account/]Kind/name; * matches within a part',
      });
    }
  }

  // A replaced resource gets a new id: what references it is updated to point at the new one.
  for (const decision of decisions.values()) {
    const { desired: d, kind } = decision;
    if (decision.action === 'create' || decision.action === 'replace') continue;
    for (const ref of kind.references) {
      const replaced = referencedNames(d.spec, ref.pointer).filter(
        (n) => decisions.get(resourceKey(d.account, ref.kind, n))?.action === 'replace',
      );
      if (replaced.length === 0 || !decision.diff) continue;
      const member = parsePointer(ref.pointer)[0];
      if (!decision.diff.changed.includes(member)) decision.diff.changed = [...decision.diff.changed, member].sort();
      decision.action = 'update';
      decision.reason ??= `refers to ${ref.kind} ${replaced.join(', ')}, which is replaced`;
    }
  }

  // Children of a parent that is created or replaced travel in the parent's request.
  for (const decision of decisions.values()) {
    const { desired: d, kind } = decision;
    if (!kind.parentKind || d.parent === undefined) continue;
    const parent = decisions.get(resourceKey(d.account, kind.parentKind, d.parent));
    if (parent && kindByName.get(kind.parentKind)?.ownsChildren && (parent.action === 'create' || parent.action === 'replace')) {
      parent.children.push(decision);
      decision.folded = true;
    }
  }

  // Live resources nobody declares.
  const deletions: { live: LiveResource; kind: Kind; reason: string }[] = [];
  const unmanaged: UnmanagedResource[] = [];
  const reported = new Set<string>();
  for (const r of liveIn) {
    const kind = kindByName.get(r.kind);
    const key = resourceKey(r.account, r.kind, r.name);
    if (!kind || r.managedByService || decisions.has(key) || desiredByKey.has(key)) continue;
    const parentKind = kind.parentKind ? kindByName.get(kind.parentKind) : undefined;
    if (parentKind && r.parent !== undefined) {
      const parent = decisions.get(resourceKey(r.account, parentKind.kind, r.parent));
      if (parent) {
        // A declared parent lists all its children; a replaced one takes them along.
        if (!(parentKind.ownsChildren && parent.action === 'replace')) {
          deletions.push({ live: r, kind, reason: `not declared in ${parentKind.kind} ${r.parent}` });
        }
        continue;
      }
      // Undeclared parent: its children go (or stay) with it.
      if (parentKind.ownsChildren) continue;
    }
    if (desired.root.prune[r.kind]) {
      if ((liveByKey.get(key) ?? []).length > 1) {
        if (reported.has(key)) continue;
        reported.add(key);
        diagnostics.push({
          severity: 'error',
          code: 'ambiguous-live-name',
          message: `prune would delete ${liveByKey.get(key)!.length} live ${r.kind} resources named ${r.name} in account ${r.account} (ids ${liveByKey
            .get(key)!
            .map((m) => m.id)
            .sort()
            .join(', ')}); names must be unique to be managed`,
          hint: 'rename or delete them in the service',
        });
        continue;
      }
      deletions.push({ live: r, kind, reason: `not declared; prune is on for ${r.kind}` });
    } else {
      unmanaged.push({ kind: r.kind, account: r.account, name: r.name, id: r.id });
    }
  }
  const deletedKeys = new Set(deletions.map((x) => resourceKey(x.live.account, x.live.kind, x.live.name)));

  // References of every declared resource, changed or not.
  for (const decision of decisions.values()) decision.refs = resolveRefs(decision, decisions, liveByKey, deletedKeys, diagnostics);

  // Build the changes.
  const items: PlannedChange[] = [];
  for (const decision of decisions.values()) {
    if (!decision.action || decision.folded) continue;
    const change = writeChange(decision);
    items.push({ change, desired: decision.desired, live: decision.live });
  }
  for (const x of deletions) items.push({ change: deleteChange(x.live, x.kind, x.reason), live: x.live });

  const ordered = orderChanges(items, kinds, accountOrder);
  diagnostics.push(...ordered.diagnostics);

  const declared = new Set(desiredByKey.keys());
  const inUse = inUseRefusal(items, liveIn, kinds, declared);
  const safety = safetyRefusal(ordered.changes, liveIn, accountOrder, kinds);
  const budget = budgetNeeds(ordered.changes, kinds, accounts, options.budget);
  diagnostics.push(...budget.diagnostics);

  const sorted = sortDiagnostics(diagnostics);
  if (hasErrors(sorted)) return { diagnostics: sorted };

  const accountIdx = (a: string): number => accountOrder.indexOf(a);
  const kindIdx = (k: string): number => kinds.findIndex((x) => x.kind === k);
  unmanaged.sort(
    (a, b) =>
      accountIdx(a.account) - accountIdx(b.account) ||
      kindIdx(a.kind) - kindIdx(b.kind) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const count = (action: Action): number => ordered.changes.filter((c) => c.action === action).length;
  const refusal = options.force ? undefined : combine(inUse, safety);
  const result: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts,
    changes: ordered.changes,
    summary: { create: count('create'), update: count('update'), replace: count('replace'), delete: count('delete'), unmanaged: unmanaged.length },
    unmanaged,
    diagnostics: sorted,
    ...(refusal ? { refusal } : {}),
    apiCalls: options.apiCalls ?? { total: 0, byBucket: {} },
    budget: budget.needs,
  };
  return { plan: result, diagnostics: sorted };
}

/** Each referenced name with its live id when it keeps one through this plan; problems as diagnostics. */
function resolveRefs(
  decision: Decision,
  decisions: ReadonlyMap<string, Decision>,
  liveByKey: ReadonlyMap<string, LiveResource[]>,
  deletedKeys: ReadonlySet<string>,
  diagnostics: Diagnostic[],
): NonNullable<Change['refs']> {
  const d = decision.desired;
  const refs: NonNullable<Change['refs']> = [];
  for (const ref of decision.kind.references) {
    for (const name of referencedNames(d.spec, ref.pointer)) {
      const key = resourceKey(d.account, ref.kind, name);
      const target = decisions.get(key);
      const lives = liveByKey.get(key) ?? [];
      if (!target && lives.length === 0) {
        diagnostics.push({
          severity: 'error',
          code: 'unknown-reference',
          message: `${d.kind} ${d.name} refers to ${ref.kind} ${name}, which is neither declared nor live in account ${d.account}`,
          field: ref.pointer,
          ...at(d),
          hint: `declare the ${ref.kind} or remove it from the ${d.kind}`,
        });
        continue;
      }
      if (!target && deletedKeys.has(key)) {
        diagnostics.push({
          severity: 'error',
          code: 'reference-to-deleted',
          message: `${d.kind} ${d.name} refers to ${ref.kind} ${name}, which this plan deletes (not declared, prune is on)`,
          field: ref.pointer,
          ...at(d),
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
          field: ref.pointer,
          ...at(d),
        });
        continue;
      }
      // A replaced or created target has its id only once apply has run its change.
      const keepsId = !target || target.action === undefined || target.action === 'update';
      const id = keepsId && lives.length === 1 ? lives[0].id : undefined;
      refs.push({ kind: ref.kind, name, ...(id !== undefined ? { id } : {}) });
    }
  }
  return refs;
}

function writeChange(decision: Decision): Change {
  const { desired: d, kind, live, diff } = decision;
  const action = decision.action!;
  const view = action === 'create' || !diff ? { ...desiredView(kind, d), before: undefined } : diff;
  // Folded children travel in this change's request: their references are this change's too.
  const refs = [decision, ...decision.children].flatMap((part) => part.refs);
  const children =
    decision.children.length > 0 ? decision.children.map((c) => ({ name: c.desired.name, after: desiredView(c.kind, c.desired).after })) : undefined;
  return {
    key: resourceKey(d.account, d.kind, d.name),
    action,
    kind: d.kind,
    account: d.account,
    name: d.name,
    ...(d.parent !== undefined ? { parent: d.parent } : {}),
    ...(live ? { liveId: live.id } : {}),
    ...(view.before ? { before: view.before } : {}),
    after: view.after,
    ...(diff && action !== 'create' ? { diff: diff.diff, changed: diff.changed } : {}),
    writeOnly: view.writeOnly,
    sensitive: view.sensitive,
    ...(decision.rotate ? { rotate: true } : {}),
    ...(children ? { children } : {}),
    ...(refs.length > 0 ? { refs } : {}),
    dependsOn: [],
    ...(decision.reason ? { reason: decision.reason } : {}),
    ...(d.source ? { source: d.source } : {}),
    liveDigest: liveDigest(action === 'create' ? undefined : live),
  };
}

function deleteChange(live: LiveResource, kind: Kind, reason: string): Change {
  const view = liveView(kind, live);
  return {
    key: resourceKey(live.account, live.kind, live.name),
    action: 'delete',
    kind: live.kind,
    account: live.account,
    name: live.name,
    ...(live.parent !== undefined ? { parent: live.parent } : {}),
    liveId: live.id,
    before: view.before,
    writeOnly: view.writeOnly,
    sensitive: view.sensitive,
    dependsOn: [],
    reason,
    liveDigest: liveDigest(live),
  };
}

function combine(first: Refusal | undefined, second: Refusal | undefined): Refusal | undefined {
  if (!first || !second) return first ?? second;
  return { code: first.code, message: `${first.message}; also, ${second.message}`, details: [...first.details, ...second.details] };
}
