// Goldens of what issue 11 adds to a plan: a rename, a move between accounts, a look-alike delete and
// create, a partial plan (--target), a protected unmanaged resource and a preventDestroy refusal.
// `UPDATE_GOLDEN=1` rewrites them; review the diff.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Change, type Plan, PLAN_FORMAT_VERSION } from '../../src/model/plan.js';
import { renderPlan } from '../../src/render/index.js';

const goldenDir = join(dirname(fileURLToPath(import.meta.url)), 'golden');

function golden(name: string, actual: string): void {
  const file = join(goldenDir, name);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, actual);
  expect(existsSync(file), `golden ${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

const hook = (url: string) => ({ type: 'Webhook', enabled: true, data: { webhookUrl: url } });
const base = { writeOnly: [], sensitive: [], dependsOn: [] as string[] };

const changes: Change[] = [
  {
    ...base,
    key: 'prod/AlertChannel/ops-hook-eu',
    action: 'update',
    kind: 'AlertChannel',
    account: 'prod',
    name: 'ops-hook-eu',
    liveId: 'PROD_AAA',
    before: hook('https://ops.example.com/h'),
    after: hook('https://ops.example.com/h'),
    diff: [],
    changed: [],
    renamedFrom: 'ops-hook',
    source: { file: 'channels.yaml', line: 1, column: 1 },
    liveDigest: 'sha256:1',
  },
  {
    ...base,
    key: 'prod/AlertChannel/audit-2',
    action: 'create',
    kind: 'AlertChannel',
    account: 'prod',
    name: 'audit-2',
    after: hook('https://audit.example.com'),
    sameSpecAs: 'prod/AlertChannel/audit',
    source: { file: 'channels.yaml', line: 9, column: 1 },
    liveDigest: 'absent',
  },
  {
    ...base,
    key: 'prod/AlertChannel/audit',
    action: 'delete',
    kind: 'AlertChannel',
    account: 'prod',
    name: 'audit',
    liveId: 'PROD_BBB',
    before: hook('https://audit.example.com'),
    dependsOn: ['prod/AlertChannel/audit-2'],
    reason: 'not declared; prune is on for AlertChannel',
    reasonCode: 'delete-because-not-declared',
    sameSpecAs: 'prod/AlertChannel/audit-2',
    liveDigest: 'sha256:2',
  },
  {
    ...base,
    key: 'staging/AlertChannel/roaming',
    action: 'create',
    kind: 'AlertChannel',
    account: 'staging',
    name: 'roaming',
    after: hook('https://roaming.example.com'),
    movedFrom: 'prod/AlertChannel/roaming',
    source: { file: 'channels.yaml', line: 17, column: 1 },
    liveDigest: 'absent',
  },
  {
    ...base,
    key: 'prod/AlertChannel/roaming',
    action: 'delete',
    kind: 'AlertChannel',
    account: 'prod',
    name: 'roaming',
    liveId: 'PROD_CCC',
    before: hook('https://roaming.example.com'),
    dependsOn: ['staging/AlertChannel/roaming'],
    reason: 'not declared; prune is on for AlertChannel',
    reasonCode: 'delete-because-not-declared',
    movedTo: 'staging/AlertChannel/roaming',
    liveDigest: 'sha256:3',
  },
];

function linkedPlan(): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts: [
      { name: 'prod', orgAccess: false },
      { name: 'staging', orgAccess: false },
    ],
    changes,
    summary: { create: 2, update: 1, replace: 0, delete: 2, unmanaged: 1 },
    unmanaged: [{ kind: 'AlertChannel', account: 'prod', name: 'keep-me', id: 'PROD_DDD', protected: true }],
    diagnostics: [],
    targets: ['AlertChannel/*'],
    refusal: {
      code: 'prevent-destroy',
      message: 'the plan deletes or replaces a resource whose lifecycle says preventDestroy; --force does not override this',
      details: ['prod/AlertChannel/roaming (delete; its document is now staging/AlertChannel/roaming)'],
    },
    apiCalls: { total: 3, byBucket: { 'GET AlertChannels': 2, 'POST access/tokens': 1 } },
    budget: [],
  };
}

describe('renames, moves, partial plans and lifecycle in the renderings', () => {
  it('text', () => golden('plan-linked.txt', renderPlan(linkedPlan(), 'text', { color: false })));
  it('json', () => golden('plan-linked.json', renderPlan(linkedPlan(), 'json', { color: false })));
  it('markdown', () => golden('plan-linked.md', renderPlan(linkedPlan(), 'markdown', { color: false })));
});
