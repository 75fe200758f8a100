// One vocabulary and one account order in every rendering (issue 11, "Conventions").

import { describe, expect, it } from 'vitest';
import { apply } from '../../src/ops/apply/apply.js';
import type { ApplyReport, Plan } from '../../src/model/plan.js';
import { diffLines, toYaml } from '../../src/render/display.js';
import { renderApplyReport, renderPlan } from '../../src/render/index.js';
import { change, FakeService, fakeKind, planOf } from '../engine/apply-fakes.js';
import { fixtureApplyReport, fixturePlan } from './fixtures.js';

const FORMATS = ['text', 'json', 'markdown'] as const;

describe('one vocabulary: create / update / replace / delete', () => {
  it.each(FORMATS)('the plan in %s never says destroy and names the deletions with delete', (format) => {
    const out = renderPlan(fixturePlan(), format, { color: false });
    expect(out).not.toMatch(/destroy/i);
    expect(out).toMatch(format === 'json' ? /"action": "delete"/ : format === 'markdown' ? /Delete/ : /- delete AlertChannel old-email/);
  });

  it.each(FORMATS)('the apply report in %s never says destroy', (format) => {
    const out = renderApplyReport(fixtureApplyReport(), format, { color: false });
    expect(out).not.toMatch(/destroy/i);
    expect(out).toMatch(/delete/);
  });

  it('the summary lines use the action names', () => {
    expect(renderPlan(fixturePlan(), 'text', { color: false })).toContain('2 to delete.');
    expect(renderApplyReport(fixtureApplyReport(), 'text', { color: false })).toContain('(2 create, 2 update, 0 replace, 2 delete)');
  });
});

/** Accounts in the root file's order, which is not alphabetical here. */
const ROOT_ORDER = ['zulu', 'alpha'];

function reportIn(order: string[] | undefined): ApplyReport {
  const base = fixtureApplyReport();
  // alpha's results first in execution order: a rendering that groups by first appearance or by name fails.
  const results = base.results.map((r) => ({ ...r, account: r.account === 'prod' ? 'alpha' : 'zulu' }));
  return { ...base, results, ...(order ? { accounts: order } : {}) };
}

function planIn(order: string[]): Plan {
  const base = fixturePlan();
  return {
    ...base,
    accounts: order.map((name) => ({ name, orgAccess: false })),
    changes: base.changes.map((c) => ({ ...c, account: c.account === 'prod' ? 'alpha' : 'zulu' })),
    unmanaged: [],
  };
}

describe('one account order: the root file order, in plan and apply', () => {
  it('plan text and Markdown list accounts in the root order', () => {
    const text = renderPlan(planIn(ROOT_ORDER), 'text', { color: false });
    expect(text.indexOf('Account zulu')).toBeLessThan(text.indexOf('Account alpha'));
    const md = renderPlan(planIn(ROOT_ORDER), 'markdown', { color: false });
    expect(md.indexOf('<b>zulu</b>')).toBeLessThan(md.indexOf('<b>alpha</b>'));
  });

  it('apply text and Markdown list accounts in the same order', () => {
    const text = renderApplyReport(reportIn(ROOT_ORDER), 'text', { color: false });
    expect(text.indexOf('Account zulu')).toBeGreaterThan(-1);
    expect(text.indexOf('Account zulu')).toBeLessThan(text.indexOf('Account alpha'));
    const md = renderApplyReport(reportIn(ROOT_ORDER), 'markdown', { color: false });
    expect(md.indexOf('| zulu')).toBeGreaterThan(-1);
    expect(md.indexOf('| zulu')).toBeLessThan(md.indexOf('| alpha'));
  });

  it('apply carries the plan accounts into its report, in the plan order', async () => {
    const Widget = fakeKind('Widget');
    const plan = planOf(
      [change({ action: 'create', kind: 'Widget', name: 'w1', account: 'alpha' }), change({ action: 'create', kind: 'Widget', name: 'w2', account: 'zulu' })],
      ROOT_ORDER.map((name) => ({ name, orgAccess: false })),
    );
    const report = await apply(plan, new FakeService(), { env: {}, kinds: [Widget] });
    expect(report.accounts).toEqual(ROOT_ORDER);
    const text = renderApplyReport(report, 'text', { color: false });
    expect(text.indexOf('Account zulu')).toBeLessThan(text.indexOf('Account alpha'));
  });
});

describe('context lines keep their parent keys', () => {
  const rule = (resourceGroups: string[]) => ({
    description: 'x',
    enabled: true,
    eventCategory: ['App', 'Cloud', 'Compliance', 'File'],
    resourceGroups,
  });
  const update = {
    key: 'prod/AlertRule/r',
    action: 'update' as const,
    kind: 'AlertRule',
    account: 'prod',
    name: 'r',
    liveId: 'R1',
    before: rule([]),
    after: rule(['prod-hosts']),
    diff: [{ op: 'add' as const, path: '/resourceGroups/0', value: 'prod-hosts' }],
    changed: ['resourceGroups'],
    writeOnly: [],
    sensitive: [],
    dependsOn: [],
    liveDigest: 'sha256:1',
  };

  it('a hunk that starts inside a list is preceded by its key and a gap for the lines left out', () => {
    const lines = diffLines(toYaml(update.before), toYaml(update.after));
    expect(lines.slice(0, 5)).toEqual([
      { kind: 'context', text: 'eventCategory:' },
      { kind: 'gap', text: '…' },
      { kind: 'context', text: '  - Cloud' },
      { kind: 'context', text: '  - Compliance' },
      { kind: 'context', text: '  - File' },
    ]);
  });

  it('every level of a nested mapping is named, the adjacent one without a gap', () => {
    const before = { data: { a: 1, b: 2, c: 3, d: 4, e: { w: 1, x: 2, y: 3, z: 4 } } };
    const after = { data: { a: 1, b: 2, c: 3, d: 4, e: { w: 1, x: 2, y: 3, z: 5 } } };
    expect(diffLines(toYaml(before), toYaml(after)).map((l) => `${l.kind} ${l.text}`)).toEqual([
      'context data:',
      'gap …',
      'context   e:',
      'context     w: 1',
      'context     x: 2',
      'context     y: 3',
      'remove     z: 4',
      'add     z: 5',
    ]);
  });

  it('a hunk at the top level or at the start of the text gets nothing added', () => {
    expect(diffLines('', toYaml({ a: { b: 1 } })).map((l) => l.kind)).toEqual(['add', 'add']);
    expect(diffLines('a: 1\nb: 2\n', 'a: 1\nb: 3\n').map((l) => `${l.kind} ${l.text}`)).toEqual(['context a: 1', 'remove b: 2', 'add b: 3']);
  });

  it.each(['text', 'markdown'] as const)('the %s plan shows the key above an unchanged list item', (format) => {
    const plan = { ...planOf([update]), accounts: [{ name: 'prod', orgAccess: false }] };
    const out = renderPlan(plan, format, { color: false });
    const lines = out.split('\n');
    const item = lines.findIndex((l) => l.trim() === '- Cloud');
    expect(item).toBeGreaterThan(0);
    expect(lines[item - 2].trim()).toBe('eventCategory:');
    expect(lines[item - 1].trim()).toMatch(/^(…|@@ … @@)$/);
  });
});
