// Plans at the sizes issue 34 names, built through the routing model as the plan's routing step
// builds them: the first import of an account (13 channels, one rule per category and severity: 520
// edges over 40 cells), and a large mixed plan (3 accounts, 50 channels, 250 rules, hostile names)
// that deletes, renames, disables and creates, refused by a routing requirement.

import { KINDS } from '../../src/kinds/index.js';
import { routingDimensions, routingInputs, type RoutedResource } from '../../src/kinds/routing.js';
import type { JsonObject } from '../../src/model/json.js';
import type { Change, Plan } from '../../src/model/plan.js';
import { type CauseOf, channelReceipts, checkRequirements, diffRouting, routeAll, type PlanRouting, type RoutingCause, type RoutingRequirement } from '../../src/model/routing.js';
import { HOSTILE } from '../fixtures/hostile.js';
import { emptyPlan } from '../render/fixtures.js';

const dims = routingDimensions(KINDS);
const SEVERITY_CODE = new Map(dims.severities.map((s) => [s.name, s.code]));

const channelSpec = (i: number, enabled = true): JsonObject => ({ type: i % 2 === 0 ? 'PagerDutyApi' : 'SlackChannel', enabled, data: { note: `channel ${i}` } });
const ruleSpec = (channels: string[], category: string, severity: string, resourceGroups: string[] = []): JsonObject => ({
  channels,
  severity: [SEVERITY_CODE.get(severity)!],
  eventCategory: [category],
  resourceGroups,
  description: 'routes one cell',
  enabled: true,
});

function change(action: Change['action'], r: RoutedResource, before?: JsonObject, extra: Partial<Change> = {}): Change {
  return {
    key: `${r.account}/${r.kind}/${r.name}`,
    action,
    kind: r.kind,
    account: r.account,
    name: r.name,
    writeOnly: [],
    sensitive: [],
    dependsOn: [],
    liveDigest: 'x',
    ...(action !== 'create' ? { liveId: `ID-${r.name.length}-${r.account}` } : {}),
    ...(before ? { before } : {}),
    ...(action !== 'delete' ? { after: r.spec } : {}),
    ...(action === 'update' && before ? { diff: [{ op: 'replace' as const, path: '/enabled', value: r.spec.enabled }], changed: ['enabled'] } : {}),
    ...extra,
  };
}

/** What the plan's routing step computes, from the resources before and after and the changes. */
function routingOf(accounts: string[], before: RoutedResource[], after: RoutedResource[], changes: Change[], requirements: RoutingRequirement[] = []): PlanRouting {
  const mapBefore = routeAll(routingInputs(before, accounts, KINDS), dims, 'live');
  const mapAfter = routeAll(routingInputs(after, accounts, KINDS), dims, 'live');
  const byName = new Map<string, RoutingCause>();
  for (const c of changes) {
    const role = c.kind === 'AlertRule' ? 'rule' : 'channel';
    const cause: RoutingCause = { key: c.key, action: c.action, role, name: c.name };
    for (const n of [c.name, c.renamedFrom]) if (n !== undefined) byName.set(JSON.stringify([c.account, role, n]), cause);
  }
  const causeOf: CauseOf = (account, role, name) => byName.get(JSON.stringify([account, role, name]));
  const failing = checkRequirements(requirements, mapAfter);
  const created = new Set(changes.filter((c) => c.action === 'create' && c.kind === 'AlertChannel').map((c) => `${c.account}/${c.name}`));
  const declared = new Set(after.map((r) => `${r.account}/${r.name}`));
  const newChannels = channelReceipts(mapAfter, (a, ch) => created.has(`${a}/${ch.name}`));
  const undeclaredChannels = channelReceipts(mapBefore, (a, ch) => !declared.has(`${a}/${ch.name}`));
  return {
    accounts,
    changes: diffRouting(mapBefore, mapAfter, causeOf),
    ...(failing.length > 0 ? { failing } : {}),
    ...(newChannels.length > 0 ? { newChannels } : {}),
    ...(undeclaredChannels.length > 0 ? { undeclaredChannels } : {}),
  };
}

function planOf(accounts: string[], changes: Change[], routing: PlanRouting): Plan {
  const n = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  return {
    ...emptyPlan(),
    accounts: accounts.map((name) => ({ name, orgAccess: false })),
    changes,
    summary: { create: n('create'), update: n('update'), replace: n('replace'), delete: n('delete'), unmanaged: 0 },
    routing,
  };
}

/** The first import of an account: `channels` channels, one rule per cell sending to all of them. */
export function importPlan(channels = 13): Plan {
  const account = 'prod';
  const chans: RoutedResource[] = Array.from({ length: channels }, (_, i) => ({ kind: 'AlertChannel', account, name: `ops-channel-${String(i).padStart(2, '0')}`, spec: channelSpec(i) }));
  const rules: RoutedResource[] = dims.categories.flatMap((cat) =>
    dims.severities.map((s) => ({ kind: 'AlertRule', account, name: `${cat.toLowerCase()}-${s.name}-to-everyone`, spec: ruleSpec(chans.map((c) => c.name), cat, s.name) })),
  );
  const after = [...chans, ...rules];
  const changes = after.map((r) => change('create', r));
  return planOf([account], changes, routingOf([account], [], after, changes));
}

/** A channel name from the hostile corpus, long, with a common start and end so that cutting it collides. */
const hostileChannel = (i: number): string => `${HOSTILE[i % HOSTILE.length]}-${'x'.repeat(60)}-${String(i).padStart(2, '0')}-destination`;

/**
 * 3 accounts × 50 channels × 250 rules with hostile names; the plan deletes every fifth rule, renames
 * one, disables every tenth channel, creates two channels with rules to them, and is refused by a
 * requirement the deletions break.
 */
export function largePlan(): Plan {
  return largeScenario().plan;
}

/** The live resources of the large plan (what `routes --live` maps). */
export function largeResources(): RoutedResource[] {
  return largeScenario().before;
}

function largeScenario(): { plan: Plan; before: RoutedResource[] } {
  const accounts = ['prod', 'staging', `eu-${HOSTILE[18]}`];
  const before: RoutedResource[] = [];
  const after: RoutedResource[] = [];
  const changes: Change[] = [];
  for (const account of accounts) {
    const chans = Array.from({ length: 50 }, (_, i) => ({ kind: 'AlertChannel', account, name: hostileChannel(i), spec: channelSpec(i) }));
    const rules = Array.from({ length: 250 }, (_, i) => {
      const cat = dims.categories[i % dims.categories.length]!;
      const sev = dims.severities[Math.floor(i / dims.categories.length) % dims.severities.length]!.name;
      const to = Array.from({ length: 5 }, (_, k) => chans[(i * 7 + k) % 50]!.name);
      const groups = i % 3 === 0 ? [`rg-${HOSTILE[i % HOSTILE.length]}-only-the-production-eu-west-clusters`] : [];
      return { kind: 'AlertRule', account, name: `rule-${HOSTILE[(i + 5) % HOSTILE.length]}-${String(i).padStart(3, '0')}`, spec: ruleSpec(to, cat, sev, groups) };
    });
    before.push(...chans, ...rules);
    for (const [i, c] of chans.entries()) {
      if (i % 10 === 3) {
        const off = { ...c, spec: channelSpec(i, false) };
        after.push(off);
        changes.push(change('update', off, c.spec));
      } else after.push(c);
    }
    for (const [i, r] of rules.entries()) {
      if (i % 5 === 0) changes.push(change('delete', r, r.spec, { reason: 'not declared; prune is on for AlertRule', reasonCode: 'delete-because-not-declared' }));
      else if (i === 1) {
        const renamed = { ...r, name: `${r.name}-renamed` };
        after.push(renamed);
        changes.push(change('update', renamed, r.spec, { renamedFrom: r.name, diff: [], changed: ['name'] }));
      } else after.push(r);
    }
    for (const k of [0, 1]) {
      const c = { kind: 'AlertChannel', account, name: `new-${HOSTILE[k + 20]}-pager-${k}`, spec: channelSpec(k) };
      const r = { kind: 'AlertRule', account, name: `to-new-pager-${k}`, spec: ruleSpec([c.name], dims.categories[k]!, 'critical') };
      after.push(c, r);
      changes.push(change('create', c), change('create', r));
    }
  }
  const requirement: RoutingRequirement = { name: 'critical pages', accounts: '*', eventCategories: '*', severities: ['critical'], reach: { types: ['PagerDutyApi'] }, allResources: false };
  const plan = planOf(accounts, changes, routingOf(accounts, before, after, changes, [requirement]));
  return { plan: { ...plan, refusal: { code: 'routing-requirement', message: 'after this plan, a routing requirement fails', details: ['routing requirement "critical pages" fails'] } }, before };
}

/** A drift check: the console renamed a channel (ops-slack → ops-chat) and added a destination with a rule to it. */
export function driftPlan(): Plan {
  const account = 'prod';
  const slack = { kind: 'AlertChannel', account, name: 'ops-slack', spec: channelSpec(1) };
  const chat = { ...slack, name: 'ops-chat' };
  const exfil = { kind: 'AlertChannel', account, name: 'exfil-webhook', spec: { type: 'Webhook', enabled: true, data: { note: 'added by hand' } } };
  const rule = { kind: 'AlertRule', account, name: 'everything-critical', spec: ruleSpec(['ops-slack'], 'Cloud', 'critical') };
  const sneaky = { kind: 'AlertRule', account, name: 'copy-to-webhook', spec: ruleSpec(['exfil-webhook'], 'Cloud', 'critical') };
  const live = [chat, exfil, { ...rule, spec: ruleSpec(['ops-chat'], 'Cloud', 'critical') }, sneaky];
  const desired = [slack, rule];
  const create = change('create', slack, undefined, { sameSpecAs: `${account}/AlertChannel/ops-chat` });
  const del = change('delete', chat, chat.spec, { sameSpecAs: `${account}/AlertChannel/ops-slack`, reason: 'not declared; prune is on for AlertChannel', reasonCode: 'delete-because-not-declared' });
  const upd = change('update', rule, ruleSpec(['ops-chat'], 'Cloud', 'critical'), { diff: [{ op: 'replace', path: '/channels/0', value: 'ops-slack' }], changed: ['channels'] });
  const changes = [create, upd, del];
  const plan = planOf([account], changes, routingOf([account], live, desired, changes));
  return { ...plan, unmanaged: [{ kind: 'AlertChannel', account, name: 'exfil-webhook', id: 'ID-exfil' }, { kind: 'AlertRule', account, name: 'copy-to-webhook', id: 'ID-copy' }], summary: { ...plan.summary, unmanaged: 2 } };
}
