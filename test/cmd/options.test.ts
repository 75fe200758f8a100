// Each command's options as one typed value, from the program's own declarations: commander parses
// the words, the command's parse function checks and converts, and only the command's members are
// left. A member of an unexpected type is refused, not carried on.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../cmd/main.js';
import type { Io } from '../../cmd/io.js';
import * as parse from '../../cmd/options.js';

function io(): Io {
  return { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {}, cwd: '/' };
}

/** The raw options commander gives `name` for `words` (the command's action is not run). */
function raw(name: string[], words: string[]): parse.RawOptions {
  let cmd: Command = buildProgram(io(), () => {});
  for (const n of name) cmd = cmd.commands.find((c) => c.name() === n)!;
  const { unknown } = cmd.parseOptions(words);
  expect(unknown).toEqual([]);
  return name.length > 1 ? cmd.optsWithGlobals() : cmd.opts();
}

describe('typed options', () => {
  it('plan: repeatable options as lists in order, --force a boolean either way, durations in seconds, the shard parsed, defaults kept', () => {
    const opts = parse.planOptions(
      raw(['plan'], ['--account', 'prod', '--account', 'staging', '--rotate', 'AlertChannel/*', '--target', 'AlertRule/a', '--target', 'AlertRule/b', '--max-duration', '1h30m', '--shard', '2/4', '--max-wait', '60', '--dotenv', 'x.env']),
    );
    expect(opts).toEqual({
      account: ['prod', 'staging'],
      rotate: ['AlertChannel/*'],
      target: ['AlertRule/a', 'AlertRule/b'],
      maxDuration: 5400,
      shard: { index: 2, count: 4 },
      maxWait: 60,
      force: false,
      format: 'text',
      dotenv: 'x.env',
      rehearse: true,
    });
    expect(parse.planOptions(raw(['plan'], ['--no-rehearse'])).rehearse).toBe(false);
    expect(parse.planOptions(raw(['plan'], ['--force', '--format', 'json', '--detailed-exitcode'])).force).toBe(true);
  });

  it('apply: the lease on unless --no-lease, its wait 0 unless given', () => {
    expect(parse.applyOptions(raw(['apply'], []))).toEqual({ force: false, format: 'text', leaseWait: 0, lease: true, rehearse: true });
    expect(parse.applyOptions(raw(['apply'], ['--no-lease', '--lease-wait', '30', '--auto-approve', '--plan', 'p.json', '--force', '--no-rehearse']))).toEqual({
      force: true,
      format: 'text',
      leaseWait: 30,
      lease: false,
      rehearse: false,
      autoApprove: true,
      plan: 'p.json',
    });
  });

  it('validate: --no-env as env false, true without it; the formats validate offers', () => {
    expect(parse.validateOptions(raw(['validate'], []))).toEqual({ format: 'text', env: true });
    expect(parse.validateOptions(raw(['validate'], ['--no-env', '--format', 'github']))).toEqual({ format: 'github', env: false });
  });

  it("routes test: its own options and routes' (the command's parent) in one value, the program's --no-color left out", () => {
    const program = buildProgram(io(), () => {});
    program.parseOptions(['--no-color']);
    const routes = program.commands.find((c) => c.name() === 'routes')!;
    routes.parseOptions(['--live', '--account', 'prod', '--format', 'html', '--out', 'r.html', '--base', 'origin/main']);
    const test = routes.commands.find((c) => c.name() === 'test')!;
    test.parseOptions(['--category', 'Cloud', '--severity', 'critical', '--expect', '']);
    expect(parse.routeTestOptions(test.optsWithGlobals())).toEqual({ live: true, account: ['prod'], format: 'html', out: 'r.html', base: 'origin/main', category: 'Cloud', severity: 'critical', expect: '' });
  });

  it('export, emulator, unlock, merge and show: their members only, with their defaults', () => {
    expect(parse.exportOptions(raw(['export'], ['--out', 'live', '--kind', 'AlertRule', '--kind', 'AlertChannel']))).toEqual({ out: 'live', kind: ['AlertRule', 'AlertChannel'], force: false });
    expect(parse.emulatorOptions(raw(['emulator'], ['--port', '4010', '--fail-channel', 'a']))).toEqual({
      host: '127.0.0.1',
      port: 4010,
      accounts: 'prod,staging',
      rateLimit: 120,
      faults: 0,
      faultSeed: 1,
      activitySeed: 1,
      activityRows: 96,
      predefinedPrefix: 'SVC_',
      failChannel: ['a'],
    });
    expect(parse.unlockOptions(raw(['unlock'], ['--auto-approve', '--concurrency', '4']))).toEqual({ autoApprove: true, concurrency: 4 });
    expect(parse.mergeOptions(raw(['merge'], ['--out', 'm.json']))).toEqual({ out: 'm.json', format: 'text' });
    expect(parse.showOptions(raw(['show'], ['--format', 'markdown']))).toEqual({ format: 'markdown' });
  });

  it('refuses a member of another type than its option declares, naming the command and the option', () => {
    expect(() => parse.planOptions({ format: 'text', account: 'prod' })).toThrow(/plan: option account holds string, expected a list of strings/);
    expect(() => parse.applyOptions({ format: 'text', leaseWait: '5' })).toThrow(/apply: option leaseWait holds string, expected a number/);
    expect(() => parse.showOptions({ format: 'yaml' })).toThrow(/show: option format .* one of text, json, markdown/);
    expect(() => parse.planOptions({ format: 'text', shard: '1/2' })).toThrow(/a shard I\/N/);
    expect(() => parse.exportOptions({})).toThrow(/export: option out .* required/);
  });
});
