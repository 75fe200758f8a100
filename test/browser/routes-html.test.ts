// `routes --format html` as a reviewer sees it: the page the CLI writes, loaded in Debian's chromium
// with no network. It loads clean, shows the examples' channels in the right cells, filters by
// account and channel, marks the cells that change against --base, and shows hostile names as text.

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/kinds/index.js';
import { routingDimensions, routingInputs, type RoutedResource } from '../../src/kinds/routing.js';
import { routeAll } from '../../src/model/routing.js';
import { renderRoutesHtml, ROUTES_HTML_CSP } from '../../src/render/routing-html.js';
import { bareExamples, cli, EXAMPLES } from '../e2e/harness.js';

/** The examples outside any git repository. */
const EXAMPLES_COPY = bareExamples;
import { HOSTILE } from '../fixtures/hostile.js';
import { openHtml, startBrowser, type BrowserSession, type LoadedPage } from './chromium.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });

/** The channel names a cell shows (visible items only). */
async function visibleChannels(loaded: LoadedPage, account: string, cell: string): Promise<string[]> {
  const items = loaded.page.locator(`section[data-account="${account}"] td[data-cell="${cell}"] li[data-channel]`);
  const out: string[] = [];
  for (let i = 0; i < (await items.count()); i++) {
    if (await items.nth(i).isVisible()) out.push((await items.nth(i).locator('.channel').textContent()) ?? '');
  }
  return out;
}

describe('routes --format html in a browser', () => {
  let session: BrowserSession;
  const dirs: string[] = [];
  let examplesPage: string;

  beforeAll(async () => {
    session = await startBrowser();
    const result = await cli(['routes', EXAMPLES, '--format', 'html']);
    expect(result.code, result.stderr).toBe(0);
    examplesPage = result.stdout;
  });
  afterAll(async () => {
    await session.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('is one self-contained page: a strict CSP, no request, no console error', async () => {
    expect(examplesPage).toContain(`<meta http-equiv="Content-Security-Policy" content="${ROUTES_HTML_CSP}">`);
    expect(ROUTES_HTML_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'/);
    expect(examplesPage).not.toMatch(/<(?:link|img|iframe)\b|\bsrc=|\bhref=|\bon[a-z]+=/i);
    const loaded = await openHtml(session, examplesPage);
    expect(loaded.errors).toEqual([]);
    expect(loaded.requests).toEqual([]);
    // The script ran (it is allowed by its hash): the status line is filled in.
    expect(await loaded.page.textContent('#f-status')).toMatch(/^2 accounts, \d+ cells reaching a channel$/);
    await loaded.page.context().close();
  });

  it('shows who gets each cell of the examples, with the rules and scopes behind them', async () => {
    const loaded = await openHtml(session, examplesPage);
    expect(await visibleChannels(loaded, 'prod', 'Cloud/critical')).toEqual(['datadog-events', 'oncall-pagerduty', 'security-slack', 'splunk-siem']);
    expect(await visibleChannels(loaded, 'prod', 'Compliance/medium')).toEqual(['datadog-events', 'sec-jira', 'splunk-siem']);
    expect(await visibleChannels(loaded, 'staging', 'Cloud/critical')).toEqual(['platform-teams']);
    expect(await visibleChannels(loaded, 'staging', 'App/low')).toEqual([]);
    const pager = loaded.page.locator('section[data-account="prod"] td[data-cell="Cloud/critical"] li[data-channel="oncall-pagerduty"]');
    expect(await pager.textContent()).toContain('via rule critical-to-oncall (only resource groups prod-aws-eu, prod-clusters)');
    expect(await pager.locator('.tag').textContent()).toBe('part');
    expect(await loaded.page.locator('section[data-account="staging"] td[data-cell="App/low"] .empty').isVisible()).toBe(true);
    await loaded.page.context().close();
  });

  it('filters by account and by channel', async () => {
    const loaded = await openHtml(session, examplesPage);
    const { page } = loaded;
    await page.selectOption('#f-account', 'staging');
    expect(await page.locator('section[data-account="prod"]').isVisible()).toBe(false);
    expect(await page.locator('section[data-account="staging"]').isVisible()).toBe(true);
    expect(await page.textContent('#f-status')).toMatch(/^1 account, /);
    await page.selectOption('#f-account', '');
    await page.selectOption('#f-channel', 'oncall-pagerduty');
    expect(await visibleChannels(loaded, 'prod', 'Cloud/critical')).toEqual(['oncall-pagerduty']);
    expect(await visibleChannels(loaded, 'prod', 'App/critical')).toEqual([]);
    expect(await page.locator('section[data-account="prod"] td[data-cell="App/critical"] .empty').isVisible()).toBe(true);
    // critical and high of Cloud, Compliance and K8sActivity: the rule's six cells, in prod only.
    expect(await page.textContent('#f-status')).toBe('2 accounts, 6 cells reaching the channel');
    await page.selectOption('#f-channel', '');
    expect(await visibleChannels(loaded, 'prod', 'App/critical')).toEqual(['datadog-events', 'soc-webhook', 'splunk-siem']);
    expect(loaded.errors).toEqual([]);
    await page.context().close();
  });

  it('with --base REF marks the cells that change, with what they gain and lose', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'postureops-routes-html-')), 'posture');
    dirs.push(join(dir, '..'));
    cpSync(EXAMPLES, dir, { recursive: true, filter: (src) => basename(src) !== '.env' });
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'base');
    // The branch: the on-call rule stops paging security-slack; staging's digest also goes to ops-slack.
    const prod = join(dir, 'rules', 'prod.yaml');
    writeFileSync(prod, readFileSync(prod, 'utf8').replace('channels: [oncall-pagerduty, security-slack]', 'channels: [oncall-pagerduty]'));
    const staging = join(dir, 'rules', 'staging.yaml');
    writeFileSync(staging, readFileSync(staging, 'utf8').replace('channels: [platform-teams]', 'channels: [platform-teams, ops-slack]'));
    const out = join(dir, '..', 'routing.html');
    const result = await cli(['routes', dir, '--format', 'html', '--out', out, '--base', 'main']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    // Bad input: said plainly, exit 1, no stack, nothing written.
    const unknown = await cli(['routes', dir, '--format', 'html', '--out', join(dir, '..', 'x.html'), '--base', 'no-such-branch']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--base no-such-branch: no such commit in the repository at');
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, '..', 'x.html'))).toBe(false);
    const notGit = await cli(['routes', EXAMPLES_COPY(), '--format', 'html', '--base', 'main']);
    expect(notGit.code).toBe(1);
    expect(notGit.stderr).toContain('is not in a git repository');
    expect((await cli(['routes', dir, '--format', 'json', '--base', 'main'])).stderr).toContain('--base: with --format html or text');
    const noFolder = await cli(['routes', dir, '--format', 'html', '--out', join(dir, 'no', 'such', 'r.html')]);
    expect(noFolder.code).toBe(1);
    expect(noFolder.stderr).toContain('no such folder');
    const loaded = await openHtml(session, readFileSync(out, 'utf8'));
    const { page } = loaded;
    expect(loaded.errors).toEqual([]);
    expect(loaded.requests).toEqual([]);
    expect(await page.locator('section[data-account="prod"] td.changed').count()).toBe(6);
    expect(await page.locator('section[data-account="staging"] td.changed').count()).toBe(9);
    const lost = page.locator('section[data-account="prod"] td[data-cell="Cloud/critical"]');
    expect(await lost.getAttribute('class')).toContain('changed');
    expect(await lost.locator('.mark').textContent()).toBe('changed');
    expect(await lost.locator('li.lost').textContent()).toBe('security-slacklost');
    const gained = page.locator('section[data-account="staging"] td[data-cell="Cloud/medium"] li.gained');
    expect(await gained.locator('.channel').textContent()).toBe('ops-slack');
    expect(await page.locator('section[data-account="prod"] td[data-cell="App/critical"]').getAttribute('class')).not.toContain('changed');
    expect(await page.textContent('body')).toContain('Compared with main');
    // A lost channel is a channel of the filter too.
    await page.selectOption('#f-channel', 'security-slack');
    expect(await visibleChannels(loaded, 'prod', 'Cloud/critical')).toEqual(['security-slack']);
    await page.selectOption('#f-channel', '');
    await page.check('#f-changed');
    expect(await page.locator('td.cell.dim').count()).toBe(2 * 40 - 15);
    await page.context().close();
  });

  it('shows hostile names as text and runs nothing of them', async () => {
    const names = [...HOSTILE, '</script><script>window.pwned=1</script>', '"><img src=x onerror="window.pwned=2">', "' onmouseover='window.pwned=3", 'javascript:window.pwned=4', '<style>body{display:none}</style>'];
    const resources: RoutedResource[] = names.flatMap((name, i): RoutedResource[] => [
      { kind: 'AlertChannel', account: name, name, spec: { type: 'Webhook', enabled: true } },
      { kind: 'AlertRule', account: name, name: `rule ${name}`, spec: { channels: [name], severity: [1], eventCategory: ['Cloud'], resourceGroups: [`<b>${i}</b>`] } },
    ]);
    const map = routeAll(routingInputs(resources, names, KINDS), routingDimensions(KINDS), 'configuration');
    const html = renderRoutesHtml(map, { title: '<script>window.pwned=5</script>' });
    const loaded = await openHtml(session, html);
    const { page } = loaded;
    expect(loaded.errors).toEqual([]);
    expect(loaded.requests).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('img, style').count()).toBe(1);
    expect(await page.locator('section.account').count()).toBe(names.length);
    expect(await page.title()).toBe('postureops routing: <script>window.pwned=5</script>');
    const body = (await page.textContent('body')) ?? '';
    expect(body).toContain('</script><script>window.pwned=1</script>');
    expect(body).toContain('via rule rule "><img src=x onerror="window.pwned=2"> (only resource groups <b>');
    // Controls and bidi marks are shown escaped, never raw.
    expect(body).toContain('bidi-\\u202eevil');
    expect(body).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u001b]/);
    // Every option of the filters selects its own section, by name, whatever the name holds.
    await page.selectOption('#f-account', { index: 3 });
    expect(await page.locator('section.account:visible').count()).toBe(1);
    await page.selectOption('#f-channel', { label: '"><img src=x onerror="window.pwned=2">' });
    expect(await page.locator('li[data-channel]:visible').count()).toBe(0);
    await page.selectOption('#f-account', '');
    expect(await page.locator('li[data-channel]:visible').count()).toBe(1);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await page.context().close();
  });
});
