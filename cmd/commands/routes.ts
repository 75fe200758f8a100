// `postureops routes [DIR]`: who is alerted for what, per account, from the configuration (offline,
// the default) or the live state (--live: one list per account of each kind routing reads).
// `postureops routes test`: the channels and rules one cell reaches; with --expect, exit 1 when the
// set differs (as `amtool config routes test --verify.receivers` does).

import { resolve } from 'node:path';
import { hasErrors } from '../../src/model/diagnostics.js';
import type { DesiredState } from '../../src/model/account.js';
import type { RoutingMap } from '../../src/model/routing.js';
import { EXIT, ExitError, type Io, readInto, useColor, write } from '../io.js';
import { Interruption } from '../interrupt.js';
import { type ClientFlags, printDiagnostics, progress, runSetup, scopeAccounts, withExit } from '../pipeline.js';

export type RoutesFormat = 'text' | 'json' | 'markdown';

export interface RoutesOptions extends ClientFlags {
  live?: boolean;
  account?: string[];
  format: RoutesFormat;
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
  const [{ routeAll }, { routingDimensions, routingInputs, routingReads }, { KINDS }] = await Promise.all([
    import('../../src/model/routing.js'),
    import('../../src/kinds/routing.js'),
    import('../../src/kinds/index.js'),
  ]);
  const names = accounts.map((a) => a.name);
  if (!opts.live) return routeAll(routingInputs(desired.resources, names, KINDS), routingDimensions(KINDS), 'configuration', undefined, asked);
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
    return routeAll(routingInputs(live.resources, names, KINDS), routingDimensions(KINDS), 'live', undefined, asked);
  } finally {
    interruption.dispose();
  }
}

export async function routesCommand(io: Io, dir: string, opts: RoutesOptions): Promise<number> {
  const map = await routingMap(io, dir, opts);
  if (opts.format === 'json') {
    const { renderRoutesJson } = await import('../../src/render/routing-json.js');
    write(io.stdout, renderRoutesJson(map, { secrets: io.secrets }));
  } else if (opts.format === 'markdown') {
    const { renderRoutesMarkdown } = await import('../../src/render/routing-markdown.js');
    write(io.stdout, renderRoutesMarkdown(map, { secrets: io.secrets }));
  } else {
    const { renderRoutesText } = await import('../../src/render/routing-text.js');
    write(io.stdout, renderRoutesText(map, { color: useColor(io.stdout, io.env), secrets: io.secrets }));
  }
  return EXIT.ok;
}

export async function routeTestCommand(io: Io, dir: string, opts: RouteTestOptions): Promise<number> {
  const [{ KINDS }, { routingDimensions }, { cellOf }] = await Promise.all([import('../../src/kinds/index.js'), import('../../src/kinds/routing.js'), import('../../src/model/routing.js')]);
  if (!opts.account || opts.account.length !== 1) throw new ExitError(EXIT.error, 'routes test: give exactly one --account');
  if (opts.format === 'markdown') throw new ExitError(EXIT.error, 'routes test: --format text or json');
  const dims = routingDimensions(KINDS);
  const severity = dims.severities.find((s) => s.name === opts.severity.toLowerCase() || String(s.code) === opts.severity)?.name;
  if (!severity) throw new ExitError(EXIT.error, `--severity ${opts.severity}: expected one of ${dims.severities.map((s) => s.name).join(', ')} (or 1..${dims.severities.length})`);
  const category = dims.categories.find((c) => c.toLowerCase() === opts.category.toLowerCase()) ?? opts.category;
  const map = await routingMap(io, dir, opts, [category]);
  const acc = map.accounts[0];
  if (!dims.categories.includes(category)) write(io.stderr, `note: ${category} is not an event category this version knows (${dims.categories.join(', ')}); rules that name it or every category reach it`);
  const cell = cellOf(acc, category, severity);
  const view = {
    account: acc.account,
    eventCategory: category,
    severity,
    ...(cell ? { cell } : {}),
    ...(opts.expect !== undefined ? expectation(opts.expect, cell?.channels ?? []) : {}),
  };
  if (opts.format === 'json') {
    const { renderRouteTestJson } = await import('../../src/render/routing-json.js');
    write(io.stdout, renderRouteTestJson(view, { secrets: io.secrets }));
  } else {
    const { renderRouteTestText } = await import('../../src/render/routing-text.js');
    write(io.stdout, renderRouteTestText(view, { color: useColor(io.stdout, io.env), secrets: io.secrets }));
  }
  const failed = view.expect !== undefined && ((view.missing ?? []).length > 0 || (view.extra ?? []).length > 0);
  return failed ? EXIT.error : EXIT.ok;
}

function expectation(given: string, got: string[]): { expect: string[]; missing: string[]; extra: string[] } {
  const expect = [...new Set(given.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  return { expect, missing: expect.filter((e) => !got.includes(e)).sort(), extra: got.filter((g) => !expect.includes(g)).sort() };
}
