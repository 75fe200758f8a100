import { describe, expect, it } from 'vitest';
import { plan, type PlanOptions } from '../../src/plan/steps/plan.js';
import { isLiteralMarker, literalDigest, literalRefs, MASK } from '../../src/model/env-markers.js';
import { type Plan } from '../../src/model/plan.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import { desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

function run(d: DesiredResource[], l: LiveResource[], options: Partial<PlanOptions> = {}, prune: Record<string, boolean> = {}) {
  return plan(desiredState(d, prune), liveState(l), { kinds: FAKE_KINDS, ...options });
}

function planOf(d: DesiredResource[], l: LiveResource[], options: Partial<PlanOptions> = {}, prune: Record<string, boolean> = {}): Plan {
  const result = run(d, l, options, prune);
  expect(result.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
  expect(result.plan).toBeDefined();
  return result.plan!;
}

const hook = (url: string) => ({ type: 'Webhook', data: { url } });

describe('plan: one resource against its live twin', () => {
  const cases: {
    name: string;
    desired: DesiredResource;
    live?: LiveResource;
    action: string | null;
    changed?: string[];
    diff?: unknown[];
    also?: LiveResource[];
  }[] = [
    {
      name: 'identical → no change',
      desired: desired('Channel', 'ops', hook('https://a')),
      live: live('Channel', 'ops', 'C1', hook('https://a')),
      action: null,
    },
    {
      name: 'changed field → update with ops and changed',
      desired: desired('Channel', 'ops', hook('https://b')),
      live: live('Channel', 'ops', 'C1', hook('https://a')),
      action: 'update',
      changed: ['data'],
      diff: [{ op: 'replace', path: '/data/url', value: 'https://b' }],
    },
    {
      name: 'added member → add op',
      desired: desired('Channel', 'ops', { type: 'Webhook', data: { url: 'https://a', team: 'x' } }),
      live: live('Channel', 'ops', 'C1', hook('https://a')),
      action: 'update',
      changed: ['data'],
      diff: [{ op: 'add', path: '/data/team', value: 'x' }],
    },
    {
      name: 'set arrays reordered → no change',
      desired: desired('Rule', 'r', { channels: ['a', 'b'], severity: [1, 2] }),
      live: live('Rule', 'r', 'R1', { channels: ['b', 'a'], severity: [2, 1] }),
      also: [live('Channel', 'a', 'C1', hook('x')), live('Channel', 'b', 'C2', hook('y'))],
      action: null,
    },
    {
      name: 'set array member replaced → update on the sorted array',
      desired: desired('Rule', 'r', { channels: [], severity: [3, 1] }),
      live: live('Rule', 'r', 'R1', { channels: [], severity: [2, 1] }),
      action: 'update',
      changed: ['severity'],
      diff: [{ op: 'replace', path: '/severity/1', value: 3 }],
    },
    {
      name: 'write-only value differs (live masks it) → no change',
      desired: desired('Channel', 'pd', { type: 'Pager', data: { apiKey: 'k-secret', team: 't' } }, { envRefs: { '/data/apiKey': '${env:PD}' } }),
      live: live('Channel', 'pd', 'C2', { type: 'Pager', data: { team: 't' } }),
      action: null,
    },
    {
      name: 'missing live → create',
      desired: desired('Channel', 'ops', hook('https://a')),
      action: 'create',
    },
    {
      name: 'replaceOn member changed → replace',
      desired: desired('Channel', 'ops', hook('https://a')),
      live: live('Channel', 'ops', 'C1', { type: 'Slack', data: { url: 'https://a' } }),
      action: 'replace',
      changed: ['type'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = planOf([c.desired], [...(c.live ? [c.live] : []), ...(c.also ?? [])]);
      if (c.action === null) {
        expect(p.changes).toEqual([]);
        return;
      }
      expect(p.changes).toHaveLength(1);
      const change = p.changes[0];
      expect(change.action).toBe(c.action);
      if (c.changed) expect(change.changed).toEqual(c.changed);
      if (c.diff) expect(change.diff).toEqual(c.diff);
      expect(p.summary[change.action]).toBe(1);
    });
  }
});

describe('plan: secrets', () => {
  const SECRET = 'xoxb-very-secret-token-1234';
  const PD_KEY = 'pd-secret-integration-key';

  it('keeps every secret value out of the plan and marks env values', () => {
    const p = planOf(
      [
        desired('Channel', 'slack', { type: 'Slack', data: { url: SECRET } }, { envRefs: { '/data/url': '${env:SLACK_URL}' } }),
        desired('Channel', 'pd', { type: 'Pager', data: { apiKey: PD_KEY } }, { envRefs: { '/data/apiKey': '${env:PD_KEY}' } }),
        desired('Profile', 'P', { extends: 'SVC_X' }),
        desired('Template', 'P.t', { subject: SECRET }, { parent: 'P', envRefs: { '/subject': '${env:SUBJ}' } }),
      ],
      [live('Channel', 'slack', 'C1', { type: 'Slack', data: { url: 'https://old-secret-url' } })],
      { rotate: ['Channel/pd'] },
    );
    const text = JSON.stringify(p);
    expect(text.includes(SECRET)).toBe(false);
    expect(text.includes(PD_KEY)).toBe(false);
    expect(text.includes('old-secret-url')).toBe(false);

    const slack = p.changes.find((c) => c.name === 'slack')!;
    expect(slack.action).toBe('update');
    expect(slack.diff).toEqual([{ op: 'replace', path: '/data/url', value: MASK }]);
    expect(slack.after).toEqual({ type: 'Slack', data: { url: { $env: '${env:SLACK_URL}' } } });
    expect(slack.before).toEqual({ type: 'Slack', data: { url: MASK } });
    expect(slack.sensitive).toEqual(['/data/url']);

    const pd = p.changes.find((c) => c.name === 'pd')!;
    expect(pd.action).toBe('create');
    expect(pd.writeOnly).toEqual(['/data/apiKey']);
    expect(pd.after).toEqual({ type: 'Pager', data: { apiKey: { $env: '${env:PD_KEY}' } } });

    const profile = p.changes.find((c) => c.name === 'P')!;
    expect(profile.children).toEqual([{ name: 'P.t', after: { subject: { $env: '${env:SUBJ}' } } }]);
  });

  it('keeps a literal secret out of the plan: a marker naming its place, with a digest of it', () => {
    const p = planOf([desired('Channel', 'slack', { type: 'Slack', data: { url: SECRET } })], []);
    expect(JSON.stringify(p).includes(SECRET)).toBe(false);
    const marker = (p.changes[0].after!.data as Record<string, unknown>).url;
    expect(isLiteralMarker(marker)).toBe(true);
    expect(literalRefs(p.changes[0].after)).toMatchObject([{ resource: 'prod/Channel/slack', pointer: '/data/url', sha256: literalDigest('prod/Channel/slack', '/data/url', SECRET) }]);
  });

  it('masks a new member that holds a secret inside an added object', () => {
    const p = planOf(
      [desired('Channel', 'pd', { type: 'Pager', data: { apiKey: PD_KEY, extra: { token: SECRET } } }, { envRefs: { '/data/apiKey': '${env:K}', '/data/extra/token': '${env:T}' } })],
      [live('Channel', 'pd', 'C9', { type: 'Pager', data: {} })],
    );
    expect(JSON.stringify(p).includes(SECRET)).toBe(false);
    expect(p.changes[0].diff).toEqual([{ op: 'add', path: '/data/extra', value: { token: MASK } }]);
  });
});

describe('plan: rotation', () => {
  const pd = desired('Channel', 'pd', { type: 'Pager', data: { apiKey: 'k', team: 't' } }, { envRefs: { '/data/apiKey': '${env:PD}' } });
  const pdLive = live('Channel', 'pd', 'C2', { type: 'Pager', data: { team: 't' } });

  for (const selector of ['Channel/pd', 'prod/Channel/pd', '*/Channel/p*', 'Chan*/*']) {
    it(`--rotate ${selector} forces an update sending the write-only member`, () => {
      const p = planOf([pd], [pdLive], { rotate: [selector] });
      expect(p.changes).toHaveLength(1);
      expect(p.changes[0]).toMatchObject({ action: 'update', rotate: true, changed: ['data'] });
      expect(p.changes[0].diff).toEqual([{ op: 'add', path: '/data/apiKey', value: MASK }]);
    });
  }

  it('a selector of another account or with no write-only secrets warns and changes nothing', () => {
    const result = run([pd, desired('Channel', 'hook', hook('u'))], [pdLive, live('Channel', 'hook', 'C3', hook('u'))], {
      rotate: ['staging/Channel/pd', 'Channel/hook'],
    });
    expect(result.plan!.changes).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['rotate-no-match', 'rotate-no-match']);
  });
});

describe('plan: unmanaged and prune', () => {
  const stray = live('Rule', 'stray', 'R9', { channels: [], severity: [1] });

  it('lists undeclared live resources as unmanaged when prune is off', () => {
    const p = planOf([], [stray, live('Profile', 'SVC_BASE', 'SVC_BASE', { extends: null }, { managedByService: true })]);
    expect(p.changes).toEqual([]);
    expect(p.unmanaged).toEqual([{ kind: 'Rule', account: 'prod', name: 'stray', id: 'R9' }]);
    expect(p.summary.unmanaged).toBe(1);
  });

  it('deletes them when prune is on for their kind only', () => {
    const strayChannel = live('Channel', 'old', 'C7', hook('u'));
    const p = planOf([], [stray, strayChannel], {}, { Rule: true });
    expect(p.changes.map((c) => [c.action, c.key, c.reason])).toEqual([['delete', 'prod/Rule/stray', 'not declared; prune is on for Rule']]);
    expect(p.unmanaged.map((u) => u.name)).toEqual(['old']);
  });

  it('never touches resources of accounts outside the scope', () => {
    const p = planOf([desired('Channel', 'x', hook('u'), { account: 'staging' })], [live('Rule', 's', 'R1', { channels: [], severity: [] }, { account: 'staging' })], {
      accounts: ['prod'],
    });
    expect(p.changes).toEqual([]);
    expect(p.unmanaged).toEqual([]);
    expect(p.accounts).toEqual([{ name: 'prod', orgAccess: false }]);
  });

  it('an unknown account in the scope is an error', () => {
    const result = run([], [], { accounts: ['nope'] });
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics[0].code).toBe('unknown-account');
  });
});

describe('plan: ambiguity and references', () => {
  it('two live resources with the declared name → error naming both ids, no plan', () => {
    const result = run([desired('Channel', 'ops', hook('u'))], [live('Channel', 'ops', 'C1', hook('u')), live('Channel', 'ops', 'C2', hook('v'))]);
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ severity: 'error', code: 'ambiguous-live-name', file: 'config/resources.yaml' });
    expect(result.diagnostics[0].message).toContain('C1, C2');
  });

  it('refs carry the live id, or none when the plan creates the target', () => {
    const p = planOf(
      [desired('Channel', 'old', hook('u')), desired('Channel', 'new', hook('n')), desired('Rule', 'r', { channels: ['old', 'new'], severity: [1] })],
      [live('Channel', 'old', 'C1', hook('u'))],
    );
    const rule = p.changes.find((c) => c.kind === 'Rule')!;
    expect(rule.refs).toEqual([
      { kind: 'Channel', name: 'old', id: 'C1' },
      { kind: 'Channel', name: 'new' },
    ]);
  });

  it('a reference to a channel that is neither declared nor live → unknown-reference naming both', () => {
    const result = run([desired('Rule', 'r', { channels: ['ghost'], severity: [1] })], [live('Rule', 'r', 'R1', { channels: ['other'], severity: [1] })]);
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics[0].code).toBe('unknown-reference');
    expect(result.diagnostics[0].message).toContain('Rule r');
    expect(result.diagnostics[0].message).toContain('Channel ghost');
  });

  it('the same reference the live rule already holds (an id the account lists nothing with) is kept as the id: no change, a warning', () => {
    const result = run([desired('Rule', 'r', { channels: ['ghost'], severity: [1] })], [live('Rule', 'r', 'R1', { channels: ['ghost'], severity: [1] })]);
    expect(result.plan?.changes).toEqual([]);
    expect(result.plan?.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'reference-kept-as-id']]);
  });

  it('a live, undeclared channel may be referenced (it stays unmanaged)', () => {
    const p = planOf([desired('Rule', 'r', { channels: ['legacy'], severity: [1] })], [live('Channel', 'legacy', 'C5', hook('u'))]);
    expect(p.changes[0].refs).toEqual([{ kind: 'Channel', name: 'legacy', id: 'C5' }]);
  });

  it('a reference to a channel this plan prunes is an error', () => {
    const result = run([desired('Rule', 'r', { channels: ['legacy'], severity: [1] })], [live('Channel', 'legacy', 'C5', hook('u'))], {}, { Channel: true });
    expect(result.diagnostics.map((d) => d.code)).toContain('reference-to-deleted');
  });

  it('passes warnings of the live state through (dangling-reference)', () => {
    const l = liveState([]);
    l.diagnostics = [{ severity: 'warning', code: 'dangling-reference', message: 'x' }];
    const result = plan(desiredState([]), l, { kinds: FAKE_KINDS });
    expect(result.plan!.diagnostics.map((d) => d.code)).toEqual(['dangling-reference']);
  });

  it('replacing a channel updates the rules that route to it', () => {
    const p = planOf(
      [desired('Channel', 'ops', hook('u')), desired('Rule', 'r', { channels: ['ops'], severity: [1] })],
      [live('Channel', 'ops', 'C1', { type: 'Slack', data: { url: 'u' } }), live('Rule', 'r', 'R1', { channels: ['ops'], severity: [1] })],
      { force: true },
    );
    expect(p.changes.map((c) => [c.action, c.key])).toEqual([
      ['replace', 'prod/Channel/ops'],
      ['update', 'prod/Rule/r'],
    ]);
    expect(p.changes[1].changed).toEqual(['channels']);
    expect(p.changes[1].refs).toEqual([{ kind: 'Channel', name: 'ops' }]);
    expect(p.changes[1].dependsOn).toEqual(['prod/Channel/ops']);
  });
});

describe('plan: children', () => {
  const profileLive = live('Profile', 'P', 'P', { extends: 'SVC_A' }, { info: { descriptionKeys: [{ name: 'MID' }] } });

  it('folds the templates of a new profile into its create', () => {
    const p = planOf(
      [desired('Profile', 'P', { extends: 'SVC_A' }), desired('Template', 'P.a', { subject: 'a' }, { parent: 'P' }), desired('Template', 'P.b', { subject: 'b' }, { parent: 'P' })],
      [],
    );
    expect(p.changes).toHaveLength(1);
    expect(p.changes[0]).toMatchObject({ action: 'create', kind: 'Profile', children: [{ name: 'P.a', after: { subject: 'a' } }, { name: 'P.b', after: { subject: 'b' } }] });
  });

  it('folds desired templates into a replace and plans no separate template deletes', () => {
    const p = planOf(
      [desired('Profile', 'P', { extends: 'SVC_B' }), desired('Template', 'P.a', { subject: 'a2' }, { parent: 'P' })],
      [profileLive, live('Template', 'P.a', 'P.a', { subject: 'a' }, { parent: 'P' }), live('Template', 'P.old', 'P.old', { subject: 'o' }, { parent: 'P' })],
    );
    expect(p.changes.map((c) => [c.action, c.key])).toEqual([['replace', 'prod/Profile/P']]);
    expect(p.changes[0].children).toEqual([{ name: 'P.a', after: { subject: 'a2' } }]);
  });

  it('a pruned profile takes its templates along: one delete', () => {
    const p = planOf([], [profileLive, live('Template', 'P.a', 'P.a', { subject: 'a' }, { parent: 'P' })], {}, { Profile: true });
    expect(p.changes.map((c) => [c.action, c.key])).toEqual([['delete', 'prod/Profile/P']]);
  });

  it('an undeclared profile is unmanaged with its templates not listed on their own', () => {
    const p = planOf([], [profileLive, live('Template', 'P.a', 'P.a', { subject: 'a' }, { parent: 'P' })]);
    expect(p.unmanaged.map((u) => u.kind)).toEqual(['Profile']);
  });

  it('inside an existing profile, templates are created, updated and deleted on their own', () => {
    const p = planOf(
      [desired('Profile', 'P', { extends: 'SVC_A' }), desired('Template', 'P.new', { subject: 'n' }, { parent: 'P' }), desired('Template', 'P.a', { subject: 'a2' }, { parent: 'P' })],
      [profileLive, live('Template', 'P.a', 'P.a', { subject: 'a' }, { parent: 'P' }), live('Template', 'P.gone', 'P.gone', { subject: 'g' }, { parent: 'P' })],
    );
    expect(p.changes.map((c) => [c.action, c.key, c.reason ?? ''])).toEqual([
      ['update', 'prod/Template/P.a', ''],
      ['delete', 'prod/Template/P.gone', 'not declared in Profile P'],
      ['create', 'prod/Template/P.new', ''],
    ]);
    expect(p.changes.every((c) => c.parent === 'P')).toBe(true);
  });

  it("runs the kind's check against the live state of the account (errors → no plan)", () => {
    const result = run([desired('Profile', 'P', { extends: 'SVC_A' }), desired('Template', 'P.x', { subject: '{{MID}} {{NOPE}}' }, { parent: 'P' })], [profileLive]);
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics.map((d) => [d.code, d.message])).toEqual([['unknown-placeholder', 'P.x uses {{NOPE}}']]);
  });

  it('a declared resource that the service predefines is an error', () => {
    const result = run([desired('Profile', 'SVC_A', { extends: 'SVC_BASE' })], [live('Profile', 'SVC_A', 'SVC_A', { extends: 'SVC_BASE' }, { managedByService: true })]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['managed-by-service']);
  });
});

describe('plan: output', () => {
  const d = [
    desired('Channel', 'b', hook('u2'), { account: 'staging' }),
    desired('Channel', 'a', hook('u1')),
    desired('Rule', 'r', { channels: ['a'], severity: [2, 1] }),
    desired('Profile', 'P', { extends: 'SVC_A' }),
    desired('Template', 'P.t', { subject: 's' }, { parent: 'P' }),
  ];
  const l = [live('Rule', 'r', 'R1', { channels: [], severity: [1] }), live('Channel', 'z', 'C9', hook('q'))];

  it('is byte-identical for the same input', () => {
    const one = JSON.stringify(planOf(d, l, { rotate: ['*/*'] }, { Channel: true }));
    const two = JSON.stringify(planOf(d, l, { rotate: ['*/*'] }, { Channel: true }));
    expect(one).toBe(two);
  });

  it('does not depend on the order of the input lists', () => {
    const one = JSON.stringify(planOf(d, l));
    const two = JSON.stringify(planOf([...d].reverse(), [...l].reverse()));
    expect(one).toBe(two);
  });

  it('summarises, carries api calls and digests', () => {
    const p = planOf(d, l, { apiCalls: { total: 3, byBucket: { 'GET AlertChannels': 3 } } });
    expect(p.summary).toEqual({ create: 3, update: 1, replace: 0, delete: 0, unmanaged: 1 });
    expect(p.apiCalls).toEqual({ total: 3, byBucket: { 'GET AlertChannels': 3 } });
    expect(p.formatVersion).toBe(2);
    for (const c of p.changes) expect(c.liveDigest).toMatch(c.action === 'create' ? /^absent$/ : /^[0-9a-f]{64}$/);
  });
});

describe('plan: pruning ambiguous names', () => {
  it('two undeclared live resources with one name and prune on → one error naming both ids', () => {
    const result = run([], [live('Channel', 'dup', 'C1', hook('u')), live('Channel', 'dup', 'C2', hook('v'))], {}, { Channel: true });
    expect(result.plan).toBeUndefined();
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]).toMatchObject({ code: 'ambiguous-live-name' });
    expect(result.diagnostics[0].message).toContain('C1, C2');
  });

  it('without prune both are listed as unmanaged', () => {
    const p = planOf([], [live('Channel', 'dup', 'C2', hook('v')), live('Channel', 'dup', 'C1', hook('u'))]);
    expect(p.unmanaged.map((u) => u.id)).toEqual(['C1', 'C2']);
  });
});

describe('plan: secrets inside set arrays', () => {
  it('an env value in a reordered set stays masked on both sides and in the ops', () => {
    const SECRET = 'zz-secret-recipient@example.com';
    const p = planOf(
      [desired('Channel', 'mail', { type: 'Webhook', data: { url: 'u' }, tags: [SECRET, 'b'] }, { envRefs: { '/tags/0': '${env:RCPT}' } })],
      [live('Channel', 'mail', 'C1', { type: 'Webhook', data: { url: 'u' }, tags: ['b', 'a', SECRET] })],
    );
    expect(JSON.stringify(p).includes(SECRET)).toBe(false);
    const change = p.changes[0];
    expect(change.changed).toEqual(['tags']);
    // Sorted by real value: ['b', SECRET] — the marker follows its item.
    expect(change.after?.tags).toEqual(['b', { $env: '${env:RCPT}' }]);
    expect(change.before?.tags).toEqual([MASK, MASK, MASK]);
    expect(change.diff).toEqual([{ op: 'remove', path: '/tags/2' }, { op: 'replace', path: '/tags/1', value: MASK }, { op: 'replace', path: '/tags/0', value: 'b' }]);
  });
});
