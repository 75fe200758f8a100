// The apply report as one JSON document: summary per action and per status, one result per change.

import type { ApplyReport } from '../model/plan.js';
import { inertJson } from '../model/inert.js';
import { callsJson } from './plan-json.js';

export function renderApplyJson(report: ApplyReport): string {
  const s = report.summary;
  const doc = {
    formatVersion: report.formatVersion,
    summary: {
      create: s.create,
      update: s.update,
      replace: s.replace,
      delete: s.delete,
      done: s.done,
      failed: s.failed,
      skipped: s.skipped,
    },
    results: report.results.map((r) => ({
      action: r.action,
      kind: r.kind,
      account: r.account,
      name: r.name,
      status: r.status,
      key: r.key,
      reason: r.reason,
      reasonCode: r.reasonCode,
      liveId: r.liveId,
      test: r.test,
    })),
    apiCalls: callsJson(report.apiCalls),
    waitedSeconds: report.waitedSeconds,
    ...(report.stopped ? { stopped: report.stopped } : {}),
    ...(report.failedTests ? { failedTests: report.failedTests } : {}),
    lease: report.lease,
  };
  // Exact values; characters a terminal would act on are written as \u escapes (src/model/inert.ts).
  return inertJson(JSON.stringify(doc, null, 2)) + '\n';
}
