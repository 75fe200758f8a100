// Debian's chromium, headless, driven by playwright-core: what people look at (HTML reports, the
// Mermaid blocks of a comment) is tested as a browser shows it. .ci/run installs the package; no
// browser is downloaded. Flags as the machine's notes give them: the closed network refuses
// chromium's background connections, so they are turned off.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env['POSTUREOPS_CHROMIUM'] ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface BrowserSession {
  browser: Browser;
  close(): Promise<void>;
}

/** Starts one browser for a test file (call in beforeAll; close in afterAll). */
export async function startBrowser(): Promise<BrowserSession> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  }
  // playwright gives every launch a new empty profile of its own and removes it on close.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

export interface LoadedPage {
  page: Page;
  /** Console errors and uncaught page errors seen since the page opened. */
  errors: string[];
  /** Requests the page tried to make to anything but the page itself (a self-contained page makes none). */
  requests: string[];
}

/** Opens `html` as a page with no network: every request but the document's own is refused and recorded. */
export async function openHtml(session: BrowserSession, html: string): Promise<LoadedPage> {
  const context = await session.browser.newContext({ javaScriptEnabled: true });
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url === 'http://postureops.test/') return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
    requests.push(url);
    return route.abort();
  });
  await page.goto('http://postureops.test/');
  return { page, errors, requests };
}

const requireHere = createRequire(import.meta.url);

/**
 * Parses each Mermaid block with the mermaid package in the browser (as GitHub renders them): the
 * answer per block is null when it parses and renders, or mermaid's error text.
 */
export async function checkMermaid(session: BrowserSession, blocks: readonly string[]): Promise<Array<string | null>> {
  const { page } = await openHtml(session, '<!doctype html><html><body><div id="out"></div></body></html>');
  const results = await mermaidIn(page, blocks);
  await page.context().close();
  return results;
}

/** As checkMermaid, in a page already open (one page for a test's Markdown and its diagrams). */
export async function mermaidIn(page: Page, blocks: readonly string[]): Promise<Array<string | null>> {
  await page.addScriptTag({ path: requireHere.resolve('mermaid/dist/mermaid.min.js') });
  return page.evaluate(async (sources: string[]) => {
    const m = (globalThis as unknown as { mermaid: { initialize(o: object): void; parse(t: string): Promise<unknown>; render(id: string, t: string): Promise<{ svg: string }> } }).mermaid;
    m.initialize({ startOnLoad: false, securityLevel: 'strict' });
    const answers: Array<string | null> = [];
    for (let i = 0; i < sources.length; i += 1) {
      try {
        await m.parse(sources[i]!);
        const { svg } = await m.render(`block${i}`, sources[i]!);
        answers.push(/aria-roledescription="error"|Syntax error in text/.test(svg) ? 'rendered an error box' : null);
      } catch (error) {
        answers.push(String((error as Error)?.message ?? error));
      }
    }
    return answers;
  }, [...blocks]);
}

/** The ```mermaid blocks of a Markdown text. */
export function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}
