// The plan as one JSON document (design.md's contract). Only deterministic data: two plans of the
// same state render byte-identical, so the budget keeps bucket and need but not what is left of it.

import { sortDiagnostics } from '../model/diagnostics.js';
import { inertJson } from '../model/inert.js';
import type { CallStats, Change, Plan } from '../model/plan.js';
import { maskOp, maskSpec, nameOp, nameValues, secretPointers } from './display.js';

export function renderPlanJson(plan: Plan): string {
  const doc = {
    formatVersion: plan.formatVersion,
    summary: {
      create: plan.summary.create,
      update: plan.summary.update,
      replace: plan.summary.replace,
      delete: plan.summary.delete,
      unmanaged: plan.summary.unmanaged,
    },
    // Only a partial plan (--target) says so, with its selectors.
    ...(plan.targets ? { partial: true, targets: plan.targets } : {}),
    // Only a plan narrowed by --changed-since or --shard: the accounts it skipped and why.
    ...(plan.scope
      ? { scope: { changedSince: plan.scope.changedSince, shard: plan.scope.shard, skipped: plan.scope.skipped.map((s) => ({ account: s.account, reason: s.reason })) } }
      : {}),
    changes: plan.changes.map(changeJson),
    unmanaged: plan.unmanaged.map((u) => ({ kind: u.kind, account: u.account, name: u.name, id: u.id, protected: u.protected, sameSpecAs: u.sameSpecAs, lastChange: u.lastChange, audit: u.audit })),
    // Kinds not read per account (nothing of them declared, pruned or referred to there).
    unread: plan.unread,
    diagnostics: sortDiagnostics(plan.diagnostics),
    // Cells whose channels change (accounts whose channels and rules were read), and requirements failing after.
    routing: plan.routing,
    refusal: plan.refusal ? { code: plan.refusal.code, message: plan.refusal.message, details: plan.refusal.details } : undefined,
    // What the rehearsal on the emulator found (absent: not rehearsed, --no-rehearse or no change).
    rehearsal: plan.rehearsal,
    apiCalls: callsJson(plan.apiCalls),
    budget: plan.budget.map((b) => ({ bucket: b.bucket, needed: b.needed })),
    attribution: plan.attribution,
  };
  // Exact values; characters a terminal would act on are written as \u escapes (src/model/inert.ts).
  return inertJson(JSON.stringify(doc, null, 2)) + '\n';
}

/** `liveDigest` stays in plan files: it is for staleness checks, not for readers. */
function changeJson(change: Change) {
  const pointers = secretPointers(change);
  return {
    action: change.action,
    kind: change.kind,
    account: change.account,
    name: change.name,
    key: change.key,
    parent: change.parent,
    liveId: change.liveId,
    reason: change.reason,
    reasonCode: change.reasonCode,
    renamedFrom: change.renamedFrom,
    movedFrom: change.movedFrom,
    movedTo: change.movedTo,
    sameSpecAs: change.sameSpecAs,
    issued: change.issued,
    withheld: change.withheld,
    changed: change.changed,
    diff: change.diff?.map((op) => nameOp(maskOp(op, pointers), change.valueNames)),
    writeOnly: change.writeOnly,
    sensitive: change.sensitive,
    rotate: change.rotate,
    dependsOn: change.dependsOn,
    refs: change.refs,
    source: change.source,
    before: nameValues(maskSpec(change.before, pointers), change.valueNames),
    after: nameValues(maskSpec(change.after, pointers), change.valueNames),
    children: change.children,
    lastChange: change.lastChange,
    audit: change.audit,
  };
}

/** Buckets in name order, so the document does not depend on the order requests were made in. */
export function callsJson(calls: CallStats): CallStats {
  const byBucket: Record<string, number> = {};
  for (const b of Object.keys(calls.byBucket).sort()) byBucket[b] = calls.byBucket[b];
  return { total: calls.total, byBucket };
}
