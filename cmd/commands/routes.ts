// `postureops routes [DIR]`: who is alerted for what, per account, from the configuration (offline,
// the default) or the live state (--live: one list per account of each kind routing reads).
// `postureops routes test`: the channels and rules one cell reaches; with --expect, exit 1 when the
// set differs (as `amtool config routes test --verify.receivers` does).

import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { hasErrors } from '../../src/model/diagnostics.js';
import type { DesiredState } from '../../src/model/account.js';
import type { RoutingMap } from '../../src/model/routing.js';
import { renderMasked } from '../../src/model/read-values.js';
import { DEFAULT_WIDTH, EXIT, ExitError, type Io, readInto, terminalWidth, useColor, write, writeText } from '../io.js';
import { Interruption } from '../interrupt.js';
import { type ClientFlags, printDiagnostics, progress, runSetup, scopeAccounts, withExit } from '../pipeline.js';

export type RoutesFormat = 'text' | 'json' | 'markdown' | 'html';

export interface RoutesOptions extends ClientFlags {
  live?: boolean;
  account?: string[];
  format: RoutesFormat;
  /** Write the output to this file (atomically) instead of stdout. */
  out?: string;
  /** A git ref: compare with the routing of the configuration at it (html and text). */
  base?: string;
}

export interface RouteTestOptions extends RoutesOptions {
  category: string;
  severity: string;
  /** Comma-separated channel names; '' expects none. */
  expect?: string;
}

/** The configuration, read without needing its secrets (routing needs none). */
async function loadForRoutes(io: Io, dir: string): Promise<DesiredState> {
  const [{ loadConfiguration: loadConfig }, { ENV_SKIPPED }] = await Promise.all([import('../../src/run/load.js'), import('../../src/config/interpolate.js')]);
  const result = await loadConfig(resolve(io.cwd, dir), { ...readInto(io), env: io.env, missingEnv: 'skip' });
  const diagnostics = result.diagnostics.filter((d) => d.code !== ENV_SKIPPED);
  await printDiagnostics(io, diagnostics.filter((d) => d.severity === 'error'));
  if (!result.state || hasErrors(diagnostics)) throw new ExitError(EXIT.error, 'the configuration has errors (postureops validate shows them all)');
  return result.state;
}

/** The routing map of the accounts asked for, from the configuration or the live state. */
async function routingMap(io: Io, dir: string, opts: RoutesOptions, asked: string[] = []): Promise<RoutingMap> {
  const desired = await loadForRoutes(io, dir);
  const accounts = await scopeAccounts(io, desired.root.accounts, opts.account);
  const [{ routeAll }, { routingDimensions, routingInputs, routingReads }, { KINDS }, { configurationRouting }] = await Promise.all([
    import('../../src/model/routing.js'),
    import('../../src/kinds/routing.js'),
    import('../../src/kinds/index.js'),
    import('../../src/config/routing.js'),
  ]);
  const names = accounts.map((a) => a.name);
  if (!opts.live) return configurationRouting(desired, names, asked);
  const interruption = new Interruption(io);
  try {
    const { readRun } = await import('../../src/run/read-run.js');
    // Only the lists routing needs, one each per account: channels, rules, and what rules name (resource groups).
    const setup = await runSetup(io, opts, interruption);
    const live = await withExit(io, () =>
      readRun(
        setup,
        { accounts, kinds: routingReads(KINDS), ...(desired.root.settings ? { settings: desired.root.settings } : {}) },
        {
          reading: () => {
            progress(io, `Reading channels and rules of ${names.join(', ')}…`);
            return undefined;
          },
          race: (reading) => interruption.race(reading, 'the live state was not read completely'),
        },
      ),
    );
    await printDiagnostics(io, live.diagnostics ?? []);
    // Health comes with the records read (each channel's `state`): no request of its own.
    return routeAll(routingInputs(live.resources, names, KINDS, true), routingDimensions(KINDS), 'live', undefined, asked);
  } finally {
    interruption.dispose();
  }
}

/** The routing of the configuration at a git ref, for the accounts of `map` that it declares. */
async function baseMap(io: Io, dir: string, ref: string, map: RoutingMap): Promise<{ ref: string; commit: string; map: RoutingMap }> {
  const [{ routingAtCommit }, { GitError }] = await Promise.all([import('../../src/config/at-commit.js'), import('../../src/util/git.js')]);
  const at = await routingAtCommit(resolve(io.cwd, dir), ref, map.accounts.map((a) => a.account), { env: io.env, ...readInto(io) }).catch((err: unknown) => {
    throw err instanceof GitError ? new ExitError(EXIT.error, err.message) : err;
  });
  if (!at.map) {
    await printDiagnostics(io, at.errors);
    throw new ExitError(EXIT.error, `--base ${ref}: the configuration at that commit has errors, so there is nothing to compare with`);
  }
  return { ref, commit: at.commit, map: at.map };
}

/** `--out FILE`: written whole or not at all (a temporary file beside it, renamed). */
async function writeOut(io: Io, file: string, text: string): Promise<void> {
  const target = resolve(io.cwd, file);
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text);
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new ExitError(EXIT.error, `--out ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such folder' : err instanceof Error ? err.message : String(err)}`);
  }
}

export async function routesCommand(io: Io, dir: string, opts: RoutesOptions): Promise<number> {
  if (opts.base !== undefined && (opts.format === 'json' || opts.format === 'markdown')) throw new ExitError(EXIT.error, '--base: with --format html or text');
  const map = await routingMap(io, dir, opts);
  const base = opts.base !== undefined ? await baseMap(io, dir, opts.base, map) : undefined;
  let text: string;
  if (opts.format === 'json') {
    const { renderRoutesJson } = await import('../../src/render/routing-json.js');
    text = renderRoutesJson(map, { secrets: io.secrets });
  } else if (opts.format === 'markdown') {
    const { renderRoutesMarkdown } = await import('../../src/render/routing-markdown.js');
    text = renderRoutesMarkdown(map, { secrets: io.secrets });
  } else if (opts.format === 'html') {
    const { renderRoutesHtml } = await import('../../src/render/routing-html.js');
    // Masked as data, the base's map too (a variable read at the base commit is a secret as well).
    text = renderMasked(io.secrets, { map, base }, (shown) => renderRoutesHtml(shown.map, { title: basename(resolve(io.cwd, dir)), ...(shown.base ? { base: shown.base } : {}) }));
  } else {
    const { renderRoutesText } = await import('../../src/render/routing-text.js');
    const color = opts.out === undefined && useColor(io.stdout, io.env);
    text = renderRoutesText(map, { color, width: opts.out === undefined ? terminalWidth(io.stdout) : DEFAULT_WIDTH, ...(base ? { base } : {}), secrets: io.secrets });
  }
  if (opts.out !== undefined) {
    await writeOut(io, opts.out, text);
    progress(io, `Wrote ${opts.out}`);
  } else if (opts.format === 'text') writeText(io.stdout, text);
  else write(io.stdout, text);
  return EXIT.ok;
}

export async function routeTestCommand(io: Io, dir: string, opts: RouteTestOptions): Promise<number> {
  const [{ KINDS }, { routingDimensions }, { cellOf, healthByName }] = await Promise.all([import('../../src/kinds/index.js'), import('../../src/kinds/routing.js'), import('../../src/model/routing.js')]);
  if (!opts.account || opts.account.length !== 1) throw new ExitError(EXIT.error, 'routes test: give exactly one --account');
  if (opts.format === 'markdown' || opts.format === 'html' || opts.base !== undefined || opts.out !== undefined) throw new ExitError(EXIT.error, 'routes test: --format text or json, to stdout, without --base');
  const dims = routingDimensions(KINDS);
  const severity = dims.severities.find((s) => s.name === opts.severity.toLowerCase() || String(s.code) === opts.severity)?.name;
  if (!severity) throw new ExitError(EXIT.error, `--severity ${opts.severity}: expected one of ${dims.severities.map((s) => s.name).join(', ')} (or 1..${dims.severities.length})`);
  const category = dims.categories.find((c) => c.toLowerCase() === opts.category.toLowerCase()) ?? opts.category;
  const map = await routingMap(io, dir, opts, [category]);
  const acc = map.accounts[0];
  if (!dims.categories.includes(category)) write(io.stderr, `note: ${category} is not an event category this version knows (${dims.categories.join(', ')}); rules that name it or every category reach it`);
  const cell = cellOf(acc, category, severity);
  const health = acc.health ? healthByName(acc.channels) : undefined;
  const view = {
    account: acc.account,
    eventCategory: category,
    severity,
    ...(cell ? { cell } : {}),
    ...(health && cell ? { health: Object.fromEntries(cell.channels.flatMap((c) => (health.has(c) ? [[c, health.get(c)!]] : []))) } : {}),
    ...(opts.expect !== undefined ? expectation(opts.expect, cell?.channels ?? []) : {}),
  };
  if (opts.format === 'json') {
    const { renderRouteTestJson } = await import('../../src/render/routing-json.js');
    write(io.stdout, renderRouteTestJson(view, { secrets: io.secrets }));
  } else {
    const { renderRouteTestText } = await import('../../src/render/routing-text.js');
    writeText(io.stdout, renderRouteTestText(view, { color: useColor(io.stdout, io.env), secrets: io.secrets }));
  }
  const failed = view.expect !== undefined && ((view.missing ?? []).length > 0 || (view.extra ?? []).length > 0);
  return failed ? EXIT.error : EXIT.ok;
}

function expectation(given: string, got: string[]): { expect: string[]; missing: string[]; extra: string[] } {
  const expect = [...new Set(given.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  return { expect, missing: expect.filter((e) => !got.includes(e)).sort(), extra: got.filter((g) => !expect.includes(g)).sort() };
}
