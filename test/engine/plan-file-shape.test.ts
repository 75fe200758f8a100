// The shape check of a loaded plan file, called in-process: a saved plan is untrusted input, so each
// way a file can be wrong (a member of the wrong type, a list holding something else, an unknown
// action or reason code, a duplicate key, a dependency on nothing) is refused as a damaged plan whose
// message names where, never a crash; and every optional part left out, or well formed, is accepted.
// The checksum is recomputed for each edit, as an editor who knows the format would.

import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Diagnostic, DiagnosticsError } from '../../src/model/diagnostics.js';
import { shown } from '../../src/plan/saved/plan-file.js';
import { readPlan } from '../../src/run/plan-files.js';
import { PLAN_FORMAT_VERSION } from '../../src/model/plan.js';
import { CHANGE_REASON_CODES } from '../../src/model/reasons.js';

type Json = Record<string, any>;

/** A well-formed plan with every optional part the loader checks: scope, routing with failing, three changes. */
function base(): Json {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts: [
      { name: 'prod', orgAccess: false },
      { name: 'dev', orgAccess: true },
    ],
    changes: [
      { key: 'prod/Channel/new', action: 'create', kind: 'Channel', account: 'prod', name: 'new', after: { type: 'Webhook' }, writeOnly: [], sensitive: [], dependsOn: [], liveDigest: 'absent' },
      {
        key: 'prod/Rule/r',
        action: 'update',
        kind: 'Rule',
        account: 'prod',
        name: 'r',
        liveId: 'R1',
        before: { channels: [] },
        after: { channels: ['new'] },
        writeOnly: ['/token'],
        sensitive: ['/token'],
        dependsOn: ['prod/Channel/new'],
        liveDigest: 'd1',
      },
      {
        key: 'prod/Channel/gone',
        action: 'delete',
        kind: 'Channel',
        account: 'prod',
        name: 'gone',
        liveId: 'C2',
        writeOnly: [],
        sensitive: [],
        dependsOn: ['prod/Rule/r'],
        liveDigest: 'd2',
        reason: 'not declared; prune is on for Channel',
        reasonCode: 'delete-because-not-declared',
      },
    ],
    summary: { create: 1, update: 1, replace: 0, delete: 1, unmanaged: 0 },
    unmanaged: [],
    diagnostics: [],
    apiCalls: { total: 2, byBucket: {} },
    budget: [],
    scope: { shard: { index: 1, count: 2 }, skipped: [{ account: 'dev', reason: 'in shard 2 of 2' }], rootAccounts: ['prod', 'dev'] },
    routing: {
      accounts: ['prod'],
      changes: [{ account: 'prod', eventCategory: 'Compliance', severity: 'critical', before: [], after: ['new'], gained: ['new'], lost: [] }],
      failing: [{ requirement: 'critical reaches someone', accounts: [{ account: 'prod', cells: ['Compliance/critical'] }] }],
    },
  };
}

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'postureops-shape-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `plan` with a matching checksum and reads it back: the plan, or the refusal (anything else thrown fails the test). */
async function load(plan: Json): Promise<{ file: string; plan?: unknown; refusal?: Diagnostic }> {
  const file = join(dir, `p${n++}.json`);
  const checksum = createHash('sha256').update(JSON.stringify(plan)).digest('hex');
  await writeFile(file, JSON.stringify({ ...plan, checksum }));
  try {
    return { file, plan: (await readPlan(file)).plan };
  } catch (e) {
    if (!(e instanceof DiagnosticsError)) throw e;
    return { file, refusal: e.diagnostics[0] };
  }
}

/** The plan of `base()` after `edit`, refused as damaged with exactly `problems` (in order). */
async function expectDamaged(edit: (p: Json) => void, problems: string[]): Promise<void> {
  const p = base();
  edit(p);
  const { file, refusal } = await load(p);
  expect(refusal).toEqual({ severity: 'error', code: 'plan-file-corrupt', file, message: `plan file ${file} is damaged: ${problems.join('; ')}` });
}

async function expectAccepted(edit: (p: Json) => void): Promise<void> {
  const p = base();
  edit(p);
  const { plan, refusal } = await load(p);
  expect(refusal).toBeUndefined();
  expect(plan).toEqual(p);
}

const change = (p: Json, i: number): Json => p.changes[i];
const routing = (p: Json): Json => p.routing;
const failing = (p: Json): Json => p.routing.failing[0];

describe('a well-formed plan file is accepted with each optional part present or left out', () => {
  const variants: [string, (p: Json) => void][] = [
    ['everything present', () => {}],
    ['no scope', (p) => delete p.scope],
    ['a scope without shard and root accounts', (p) => (p.scope = { skipped: [] })],
    ['no routing', (p) => delete p.routing],
    ['routing without failing requirements', (p) => delete p.routing.failing],
    ['routing with two failing requirements over two accounts', (p) => {
      p.routing.failing.push({ requirement: 'dev too', accounts: [{ account: 'prod', cells: [] }, { account: 'dev', cells: ['Compliance/high'] }] });
    }],
    ['no changes at all', (p) => (p.changes = [])],
    ['a clean rehearsal', (p) => (p.rehearsal = { outcome: 'clean', accepted: 2 })],
    ['a refused rehearsal', (p) => (p.rehearsal = { outcome: 'refused', accepted: 0, refused: [{ key: 'prod/AlertChannel/x', action: 'create', message: '400' }], notTried: 1 })],
    ['an unsettled rehearsal', (p) => (p.rehearsal = { outcome: 'unsettled', accepted: 1, remaining: [{ key: 'prod/AlertChannel/x', action: 'update' }], remainingCount: 3 })],
  ];
  for (const [name, edit] of variants) it(name, () => expectAccepted(edit));
});

describe('format version', () => {
  it('a newer version is refused without calling the file older', async () => {
    const { file, refusal } = await load({ ...base(), formatVersion: PLAN_FORMAT_VERSION + 1 });
    expect(refusal?.message).toBe(`plan file ${file} has format version ${PLAN_FORMAT_VERSION + 1}; this postureops reads version ${PLAN_FORMAT_VERSION}`);
  });

  it('a version written as text is refused as another version, not as an older one, and shown quoted', async () => {
    const { file, refusal } = await load({ ...base(), formatVersion: '1' });
    expect(refusal).toMatchObject({ code: 'plan-file-version', message: `plan file ${file} has format version "1"; this postureops reads version ${PLAN_FORMAT_VERSION}` });
  });

  it('an older number says the file was saved by an older postureops', async () => {
    const { refusal } = await load({ ...base(), formatVersion: 0 });
    expect(refusal?.message).toMatch(/reads version 2 only \(the file was saved by an older postureops\)$/);
  });
});

describe('top-level members of the wrong type are refused', () => {
  const cases: [string, (p: Json) => void, string[]][] = [
    ['accounts not a list', (p) => (p.accounts = { name: 'prod', orgAccess: false }), ['accounts must be a list of {name, orgAccess}']],
    ['an account that is null', (p) => (p.accounts[1] = null), ['accounts must be a list of {name, orgAccess}']],
    ['an account that is a list', (p) => (p.accounts[1] = ['dev', true]), ['accounts must be a list of {name, orgAccess}']],
    ['an account name that is a number', (p) => (p.accounts[1].name = 7), ['accounts must be a list of {name, orgAccess}']],
    ['orgAccess as text', (p) => (p.accounts[0].orgAccess = 'false'), ['accounts must be a list of {name, orgAccess}']],
    ['a summary that is a list', (p) => (p.summary = [1, 1, 0, 1, 0]), ['summary is missing']],
    ['apiCalls that is a list', (p) => (p.apiCalls = []), ['apiCalls is missing']],
    // A crafted file is as long as it likes: what it says is quoted and cut, never echoed whole.
    [
      'a dependency named by a megabyte of text',
      (p) => change(p, 1).dependsOn.push('x'.repeat(1_000_000)),
      [`changes[1] depends on unknown change "${'x'.repeat(78)}…`],
    ],
  ];
  for (const [name, edit, problems] of cases) it(name, () => expectDamaged(edit, problems));
});

describe('a scope of the wrong shape is refused, naming scope', () => {
  const skipped = 'scope.skipped must be a list of {account, reason}';
  const cases: [string, (p: Json) => void, string[]][] = [
    ['scope as text', (p) => (p.scope = 'all'), [skipped]],
    ['scope as a list', (p) => (p.scope = [{ account: 'dev', reason: 'x' }]), [skipped]],
    ['no skipped list', (p) => delete p.scope.skipped, [skipped]],
    ['skipped as an object', (p) => (p.scope.skipped = { account: 'dev', reason: 'x' }), [skipped]],
    ['a skipped entry that is null', (p) => p.scope.skipped.push(null), [skipped]],
    ['a second skipped entry with a numeric account', (p) => p.scope.skipped.push({ account: 3, reason: 'x' }), [skipped]],
    ['a skipped entry without a reason', (p) => delete p.scope.skipped[0].reason, [skipped]],
    ['a skipped entry without an account', (p) => delete p.scope.skipped[0].account, [skipped]],
    // With skipped wrong, the rest of the scope is not looked at: one problem, not a cascade.
    ['skipped and shard both wrong: one problem', (p) => (p.scope = { skipped: 'x', shard: 'y', rootAccounts: 'z' }), [skipped]],
    ['a shard as text', (p) => (p.scope.shard = '1/2'), ['scope.shard must be {index, count}']],
    ['a shard as null', (p) => (p.scope.shard = null), ['scope.shard must be {index, count}']],
    ['a shard without count', (p) => delete p.scope.shard.count, ['scope.shard must be {index, count}']],
    ['a shard with a fractional index', (p) => (p.scope.shard.index = 1.5), ['scope.shard must be {index, count}']],
    ['a shard with a count as text', (p) => (p.scope.shard.count = '2'), ['scope.shard must be {index, count}']],
    ['root accounts as text', (p) => (p.scope.rootAccounts = 'prod,dev'), ['scope.rootAccounts must be a list of strings']],
    ['root accounts holding a number', (p) => p.scope.rootAccounts.push(4), ['scope.rootAccounts must be a list of strings']],
    ['a wrong shard and wrong root accounts: both named', (p) => Object.assign(p.scope, { shard: {}, rootAccounts: null }), ['scope.shard must be {index, count}', 'scope.rootAccounts must be a list of strings']],
    // A crafted file is as long as it likes: what it says is quoted and cut, never echoed whole.
    [
      'a dependency named by a megabyte of text',
      (p) => change(p, 1).dependsOn.push('x'.repeat(1_000_000)),
      [`changes[1] depends on unknown change "${'x'.repeat(78)}…`],
    ],
  ];
  for (const [name, edit, problems] of cases) it(name, () => expectDamaged(edit, problems));
});

describe('routing of the wrong shape is refused, naming routing', () => {
  const wrong = ['routing must be {accounts, changes: [{account, eventCategory, severity, before, after, gained, lost, causes?}], failing?, newChannels?, undeclaredChannels?, delivery?, outages?, requiredChannels?}'];
  const cases: [string, (p: Json) => void][] = [
    ['routing as text', (p) => (p.routing = 'none')],
    ['routing as a list', (p) => (p.routing = [])],
    ['routing as null', (p) => (p.routing = null)],
    ['accounts missing', (p) => delete routing(p).accounts],
    ['accounts holding a number', (p) => routing(p).accounts.push(1)],
    ['changes missing', (p) => delete routing(p).changes],
    ['changes as an object', (p) => (routing(p).changes = { account: 'prod' })],
    ['a cell change that is null', (p) => routing(p).changes.push(null)],
    ['a cell change that is a number', (p) => routing(p).changes.push(5)],
    ['a cell change without account', (p) => delete routing(p).changes[0].account],
    ['a cell change with a numeric event category', (p) => (routing(p).changes[0].eventCategory = 3)],
    ['a cell change without severity', (p) => delete routing(p).changes[0].severity],
    ['a second cell change without before', (p) => routing(p).changes.push({ ...routing(p).changes[0], before: undefined })],
    ['after as text', (p) => (routing(p).changes[0].after = 'new')],
    ['gained holding a number', (p) => routing(p).changes[0].gained.push(1)],
    ['lost as null', (p) => (routing(p).changes[0].lost = null)],
    ['failing as an object', (p) => (routing(p).failing = { requirement: 'x', accounts: [] })],
    ['failing as null', (p) => (routing(p).failing = null)],
    ['a second failing entry that is null', (p) => routing(p).failing.push(null)],
    ['a failing entry without requirement', (p) => delete failing(p).requirement],
    ['a failing entry with a numeric requirement', (p) => (failing(p).requirement = 1)],
    ['a failing entry whose accounts is an object', (p) => (failing(p).accounts = { account: 'prod', cells: [] })],
    ['a failing account that is null', (p) => failing(p).accounts.push(null)],
    ['a second failing account without account', (p) => failing(p).accounts.push({ cells: [] })],
    ['a failing account with a numeric account', (p) => (failing(p).accounts[0].account = 2)],
    ['a failing account whose cells is text', (p) => (failing(p).accounts[0].cells = 'Compliance/critical')],
    ['a failing account whose cells hold a number', (p) => failing(p).accounts[0].cells.push(9)],
    ['causes as text', (p) => (routing(p).changes[0].causes = 'deleted rule x')],
    ['a cause with an action no change has', (p) => (routing(p).changes[0].causes = [{ key: 'k', action: 'explode', role: 'rule', name: 'x' }])],
    ['a cause with a role no route has', (p) => (routing(p).changes[0].causes = [{ key: 'k', action: 'delete', role: 'profile', name: 'x' }])],
    ['a cause with a numeric name', (p) => (routing(p).changes[0].causes = [{ key: 'k', action: 'delete', role: 'rule', name: 4 }])],
    ['new channels as an object', (p) => (routing(p).newChannels = { name: 'x' })],
    ['a new channel without its cells', (p) => (routing(p).newChannels = [{ account: 'prod', name: 'x', type: 'Webhook', enabled: true, rules: [] }])],
    ['an undeclared channel whose enabled is text', (p) => (routing(p).undeclaredChannels = [{ account: 'prod', name: 'x', type: 'Webhook', enabled: 'yes', cells: [], rules: [] }])],
    // Channel health (issue 35): what the renderers read of it is checked as well.
    ['delivery as an object', (p) => (routing(p).delivery = { account: 'prod' })],
    ['a delivery entry whose silent cells hold a number', (p) => (routing(p).delivery = [{ account: 'prod', failing: [], silent: [1], degraded: [] }])],
    ['a failing channel with a health of no known state', (p) => (routing(p).delivery = [{ account: 'prod', failing: [{ name: 'p', type: 'PagerDutyApi', health: { state: 'sick' } }], silent: [], degraded: [] }])],
    ['a failing channel whose detail is an object', (p) => (routing(p).delivery = [{ account: 'prod', failing: [{ name: 'p', type: 'PagerDutyApi', health: { state: 'failing', detail: { html: '<b>' } } }], silent: [], degraded: [] }])],
    ['a failing channel whose last success is text', (p) => (routing(p).delivery = [{ account: 'prod', failing: [{ name: 'p', type: 'PagerDutyApi', health: { state: 'failing', lastSuccess: 'yesterday' } }], silent: [], degraded: [] }])],
    ['outages as null', (p) => (routing(p).outages = null)],
    ['an outage without requirement', (p) => (routing(p).outages = [{ accounts: [] }])],
    ['a required channel whose requirements is text', (p) => (routing(p).requiredChannels = [{ account: 'prod', name: 'p', requirements: 'pages' }])],
  ];
  for (const [name, edit] of cases) it(name, () => expectDamaged(edit, wrong));
});

describe('a rehearsal of the wrong shape is refused, naming rehearsal', () => {
  const wrong = ['rehearsal must be {outcome, accepted, refused?, notTried?, remaining?, remainingCount?, message?}'];
  const cases: [string, (p: Json) => void][] = [
    ['rehearsal as text', (p) => (p.rehearsal = 'clean')],
    ['an outcome no rehearsal has', (p) => (p.rehearsal = { outcome: 'fine', accepted: 1 })],
    ['accepted as text', (p) => (p.rehearsal = { outcome: 'clean', accepted: '1' })],
    ['accepted below zero', (p) => (p.rehearsal = { outcome: 'clean', accepted: -1 })],
    ['a refused change with an action no change has', (p) => (p.rehearsal = { outcome: 'refused', accepted: 0, refused: [{ key: 'k', action: 'explode' }] })],
    ['a remaining change without its key', (p) => (p.rehearsal = { outcome: 'unsettled', accepted: 0, remaining: [{ action: 'create' }] })],
    ['a message that is not text', (p) => (p.rehearsal = { outcome: 'failed', accepted: 0, message: { text: 'x' } })],
  ];
  for (const [name, edit] of cases) it(name, () => expectDamaged(edit, wrong));
});

describe('changes of the wrong shape are refused, naming the change and the member', () => {
  const codes = Object.keys(CHANGE_REASON_CODES).join(', ');
  const cases: [string, (p: Json) => void, string[]][] = [
    ['a change that is null', (p) => (p.changes[2] = null), ['changes[2] is not an object']],
    ['a change that is text', (p) => (p.changes[2] = 'delete prod/Channel/gone'), ['changes[2] is not an object']],
    ['a change that is a list', (p) => (p.changes[2] = []), ['changes[2] is not an object']],
    ['key as a number', (p) => (change(p, 2).key = 1), ['changes[2].key must be a string']],
    ['kind missing', (p) => delete change(p, 1).kind, ['changes[1].kind must be a string']],
    ['account as null', (p) => (change(p, 0).account = null), ['changes[0].account must be a string']],
    ['name as a list', (p) => (change(p, 2).name = ['gone']), ['changes[2].name must be a string']],
    ['liveDigest missing', (p) => delete change(p, 1).liveDigest, ['changes[1].liveDigest must be a string']],
    // Without an action a change is no create, so it needs a live id too.
    ['no action', (p) => delete change(p, 0).action, ['changes[0].action must be one of create, update, replace, delete', 'changes[0].liveId is missing']],
    ['an unknown action', (p) => (change(p, 1).action = 'upsert'), ['changes[1].action must be one of create, update, replace, delete']],
    ['writeOnly as text', (p) => (change(p, 1).writeOnly = '/token'), ['changes[1].writeOnly must be a list of strings']],
    ['sensitive holding a number', (p) => change(p, 0).sensitive.push(0), ['changes[0].sensitive must be a list of strings']],
    ['dependsOn missing', (p) => delete change(p, 0).dependsOn, ['changes[0].dependsOn must be a list of strings']],
    // A dependency that is no text is one problem, not also an unknown change.
    ['dependsOn holding a number', (p) => (change(p, 1).dependsOn = [5]), ['changes[1].dependsOn must be a list of strings']],
    ['a create without after', (p) => delete change(p, 0).after, ['changes[0].after is missing']],
    ['an update whose after is a list', (p) => (change(p, 1).after = ['new']), ['changes[1].after is missing']],
    ['an update without liveId', (p) => delete change(p, 1).liveId, ['changes[1].liveId is missing']],
    ['a delete with a numeric liveId', (p) => (change(p, 2).liveId = 2), ['changes[2].liveId is missing']],
    ['an unknown reason code', (p) => (change(p, 2).reasonCode = 'because-i-said-so'), [`changes[2].reasonCode must be one of ${codes}`]],
    ['a reason code without its reason', (p) => delete change(p, 2).reason, ['changes[2].reason and reasonCode go together (a text and a code)']],
    ['a reason without its code', (p) => delete change(p, 2).reasonCode, ['changes[2].reason and reasonCode go together (a text and a code)']],
    ['a reason that is no text, beside a known code', (p) => (change(p, 2).reason = 42), ['changes[2].reason and reasonCode go together (a text and a code)']],
    ['a key that appears twice', (p) => (change(p, 2).key = 'prod/Channel/new'), ['changes[2].key "prod/Channel/new" appears twice']],
    ['a dependency on a change the plan does not hold', (p) => change(p, 1).dependsOn.push('prod/Channel/nope'), ['changes[1] depends on unknown change "prod/Channel/nope"']],
    // Keys that are no text are never counted as duplicates nor as the changes others depend on.
    [
      'two numeric keys',
      (p) => {
        change(p, 0).key = 5;
        change(p, 1).key = 5;
      },
      ['changes[0].key must be a string', 'changes[1].key must be a string', 'changes[1] depends on unknown change "prod/Channel/new"', 'changes[2] depends on unknown change "prod/Rule/r"'],
    ],
    // A crafted file is as long as it likes: what it says is quoted and cut, never echoed whole.
    [
      'a dependency named by a megabyte of text',
      (p) => change(p, 1).dependsOn.push('x'.repeat(1_000_000)),
      [`changes[1] depends on unknown change "${'x'.repeat(78)}…`],
    ],
  ];
  for (const [name, edit, problems] of cases) it(name, () => expectDamaged(edit, problems));
});

describe('a value of the file in a message', () => {
  it('is quoted as JSON, whole up to 80 characters and cut with an ellipsis past them', () => {
    expect(shown(3)).toBe('3');
    expect(shown('a"b')).toBe('"a\\"b"');
    expect(shown(undefined)).toBe('undefined');
    const eighty = 'y'.repeat(78);
    expect(shown(eighty)).toBe(`"${eighty}"`);
    expect(shown(`${eighty}z`)).toBe(`"${eighty}…`);
  });
});
