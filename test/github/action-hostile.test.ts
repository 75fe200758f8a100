// Hostile names through the bundled Action: live records whose names and authors carry escape
// sequences, bidi overrides, newlines followed by workflow commands, mentions and Markdown, and files
// that do the same. The job log holds no raw control character and no workflow command but our own;
// the pull-request comment, the drift issue and the job summary mention nobody, reference nothing,
// and keep their tables, fences and <details> whole.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { expectMarkdownSafe, expectNoWorkflowCommands, expectTerminalSafe, HOSTILE } from '../fixtures/hostile.js';
import { serviceEnv } from '../e2e/harness.js';
import { pullPayload, runBundle, SLACK_URL, writeFiles, type ActionResult } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

let emu: RunningEmulator;
let gh: FakeGithub;

/**
 * One account each: the pass-through seed shows in the list of alert channels, not in its search,
 * and a run with one account reads that list once, through the list (both buckets full).
 */
beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ['pr0', 'dr0'], rateLimit: 100_000 }), startFakeGithub()]);
  for (const account of ['pr0', 'dr0']) {
    emu.seed(
      account,
      'AlertChannels',
      HOSTILE.map((h, j) => ({ intgGuid: `${account.toUpperCase()}_H${j}`, name: h, type: 'SlackChannel', enabled: 1, createdOrUpdatedBy: h, data: { slackUrl: SLACK_URL } })),
    );
  }
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

/** A repository over `account` (pruning alert channels or not) that declares a rule whose description is hostile. */
function workspace(account: string, prune: boolean, extra: Record<string, string> = {}): string {
  const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  writeFiles(join(ws, 'posture'), {
    'postureops.yaml': `accounts:\n  - name: ${account}\nprune: {AlertChannel: ${prune}}\nvariables: [SLACK_URL]\n`,
    'rules.yaml':
      'kind: AlertChannel\nname: declared\naccount: "*"\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: ${env:SLACK_URL}\n---\n' +
      'kind: AlertRule\nname: "file-\\e[2J-\\u202e-@octocat #1"\naccount: "*"\nspec:\n  channels: [declared]\n  severity: [critical]\n  eventCategory: [Cloud]\n' +
      '  description: "one\\r\\n::set-output name=x::y\\n\\e]8;;https://evil.example/\\a-two\\n```\\n</details>\\n@octocat"\n',
    ...extra,
  });
  return ws;
}

const secrets = () => ({ ...serviceEnv(emu), SLACK_URL });

/** The Action's phases, folded: titles of our own words and counts only, nothing from outside. */
const OWN_GROUP = /^::group::(Load the configuration|Read the live state and plan|Apply \d+ change\(s\)|Merge the shards' plans|Validate the configuration \(no secrets\))$/;

/** The Action's own commands: secrets masked, the phases' groups, and the annotations a test names. */
function expectLogInert(r: ActionResult, own: RegExp[] = []): void {
  // The folds of the rendered plan and report: titles of counts only, never outside text.
  const folds = [/^::group::postureops: (plan|apply report): [0-9a-z ,]+$/, /^::endgroup::$/];
  const ours = (line: string) => line.startsWith('::add-mask::') || OWN_GROUP.test(line) || [...folds, ...own].some((re) => re.test(line));
  expectNoWorkflowCommands(r.stdout, 'job log', ours);
  expectNoWorkflowCommands(r.stderr, 'job stderr');
  expectTerminalSafe(r.stdout, 'job log');
  expectTerminalSafe(r.stderr, 'job stderr');
}

describe('hostile names through the Action', () => {
  it('a pull request: the log, the comment and the summary', async () => {
    const ws = workspace('pr0', false);
    const r = await runBundle({ workspace: ws, eventName: 'pull_request', payload: pullPayload(301), inputs: { directory: 'posture' }, env: secrets(), apiUrl: gh.url });
    expect(r.code, r.stdout).toBe(0);
    // Every hostile live record is listed as unmanaged: its name, id and author.
    expect(r.outputs).toMatchObject({ status: 'planned', 'count-unmanaged': String(HOSTILE.length) });
    expectLogInert(r);
    // The plan is in the log, its names shown escaped.
    expect(r.stdout).toContain('n1\\n::set-output name=x::y');
    expect(r.stdout).toContain('esc-\\x1b[31mred');
    const [comment] = gh.comments.get(301) ?? [];
    expectMarkdownSafe(comment.body, 'comment');
    expectMarkdownSafe(r.summary, 'summary');
    // Every name is in the comment, readable: the mention as a code span, not a link to a user.
    expect(comment.body).toContain('`@octocat` please look');
    expect(comment.body).toContain('esc-\\\\x1b\\[31mred');
  });

  it('a drift check: the issue and the log', async () => {
    // Pruning every hostile channel is over the safety threshold: the issue shows the refused plan, every deletion named.
    const ws = workspace('dr0', true);
    const r = await runBundle({ workspace: ws, eventName: 'schedule', payload: {}, ref: 'refs/heads/main', inputs: { directory: 'posture', mode: 'drift' }, env: secrets(), apiUrl: gh.url });
    expect(r.code, r.stdout).toBe(0);
    expectLogInert(r, [/^::warning title=postureops%3A drift::the live state drifted from posture: /]);
    const issue = gh.issues.find((i) => i.body.includes('folder=posture '));
    expect(issue).toBeDefined();
    expectMarkdownSafe(issue!.body, 'drift issue');
    expectMarkdownSafe(r.summary, 'drift summary');
    expect(issue!.body).toContain('`@octocat` please look');
    expect(issue!.body).toContain(`### Deletions (${HOSTILE.length})`);
  });

  it('a file with hostile keys: one annotation per problem, its text escaped, the failure comment inert', async () => {
    const ws = workspace('pr0', false, {
      'bad.yaml': `kind: AlertChannel\nname: bad\nspec:\n  type: SlackChannel\n  "x\\e[2J\\n::warning file=a::b @octocat": 1\n  data:\n    slackUrl: \${env:SLACK_URL}\n`,
    });
    const r = await runBundle({ workspace: ws, eventName: 'pull_request', payload: pullPayload(302), inputs: { directory: 'posture' }, env: secrets(), apiUrl: gh.url });
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ status: 'invalid' });
    const own = /^::error title=unknown-field,file=posture\/bad.yaml,line=5,col=3::unknown field /;
    expectLogInert(r, [own, /^::error::the configuration is invalid: /]);
    expect(r.stdout.split('\n').filter((l) => own.test(l))).toHaveLength(1);
    const [comment] = gh.comments.get(302) ?? [];
    expect(comment.body).toContain('the configuration is invalid');
    expectMarkdownSafe(comment.body, 'failure comment');
  });
});
