// Each command's options as one typed value, produced once from what commander parsed
// (`cmd.opts()`): checked member by member, converted where commander leaves text, only the
// command's own members kept. The commands and the run layer's requests take these values; nothing
// after this file reads commander's untyped object.

import type { Shard } from '../src/plan/core/shard.js';
import type { ClientFlags, PlanFlags } from './pipeline.js';
import type { ApplyOptions } from './commands/apply.js';
import type { EmulatorCliOptions } from './commands/emulator.js';
import type { ExportOptions } from './commands/export.js';
import type { MergeOptions } from './commands/merge.js';
import type { OutputFormat, PlanOptions } from './commands/plan.js';
import type { RouteTestOptions, RoutesFormat, RoutesOptions } from './commands/routes.js';
import type { TestChannelsOptions } from './commands/test-channels.js';
import type { ShowOptions } from './commands/show.js';
import type { UnlockOptions } from './commands/unlock.js';
import type { ValidateFormat, ValidateOptions } from './commands/validate.js';

export const OUTPUT_FORMATS = ['text', 'json', 'markdown'] as const satisfies readonly OutputFormat[];
export const ROUTES_FORMATS = [...OUTPUT_FORMATS, 'html'] as const satisfies readonly RoutesFormat[];
export const VALIDATE_FORMATS = ['text', 'json', 'github'] as const satisfies readonly ValidateFormat[];

/** `--dotenv FILE`: where the command's variables come from (read before the command runs). */
export interface EnvFileOption {
  dotenv?: string;
}

/** What commander gives: a value per option, of whatever type its parser made. */
export type RawOptions = Readonly<Record<string, unknown>>;

/** A member of the wrong type is this program's mistake (an option declared one way, read another), not the user's. */
class OptionTypeError extends Error {}

/** Reads the members of one command's raw options, each by the type its declaration gives it. */
class Reader {
  constructor(
    private readonly raw: RawOptions,
    private readonly command: string,
  ) {}

  private wrong(key: string, expected: string): never {
    throw new OptionTypeError(`${this.command}: option ${key} holds ${typeof this.raw[key]}, expected ${expected}`);
  }

  string(key: string): string | undefined {
    const v = this.raw[key];
    return v === undefined || typeof v === 'string' ? v : this.wrong(key, 'a string');
  }

  required(key: string): string {
    return this.string(key) ?? this.wrong(key, 'a string (a required option)');
  }

  /** A repeatable option: every value in the order given, or undefined when never given. */
  strings(key: string): string[] | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? [...v] : this.wrong(key, 'a list of strings');
  }

  /** A flag: true when given. */
  flag(key: string): boolean | undefined {
    const v = this.raw[key];
    return v === undefined || typeof v === 'boolean' ? v : this.wrong(key, 'a flag');
  }

  /** A number its parser made (integers, shares, durations in seconds). */
  number(key: string): number | undefined {
    const v = this.raw[key];
    return v === undefined || (typeof v === 'number' && Number.isFinite(v)) ? v : this.wrong(key, 'a number');
  }

  numberOr(key: string, fallback: number): number {
    return this.number(key) ?? fallback;
  }

  choice<T extends string>(key: string, choices: readonly T[]): T {
    const v = this.raw[key];
    return typeof v === 'string' && (choices as readonly string[]).includes(v) ? (v as T) : this.wrong(key, `one of ${choices.join(', ')}`);
  }

  shard(key: string): Shard | undefined {
    const v = this.raw[key];
    if (v === undefined) return undefined;
    const s = v as Partial<Shard>;
    return typeof v === 'object' && v !== null && Number.isInteger(s.index) && Number.isInteger(s.count) ? (v as Shard) : this.wrong(key, 'a shard I/N');
  }
}

/** `{...}` without its undefined members: a value holds what was given, as commander's did. */
function given<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function clientFlags(r: Reader): ClientFlags {
  return {
    baseUrl: r.string('baseUrl'),
    verbose: r.flag('verbose'),
    maxWait: r.number('maxWait'),
    concurrency: r.number('concurrency'),
    maxResponseSize: r.string('maxResponseSize'),
    maxRecords: r.string('maxRecords'),
    maxTotalSize: r.string('maxTotalSize'),
  };
}

/** What plan and apply both take: the accounts, the selectors, `--force` (always a boolean from here on). */
function planFlags(r: Reader): PlanFlags {
  return {
    ...clientFlags(r),
    account: r.strings('account'),
    force: r.flag('force') === true,
    rotate: r.strings('rotate'),
    target: r.strings('target'),
    maxDuration: r.number('maxDuration'),
    changedSince: r.string('changedSince'),
    shard: r.shard('shard'),
    // commander's `--no-rehearse`: false when given.
    rehearse: r.flag('rehearse') !== false,
  };
}

export function validateOptions(raw: RawOptions): ValidateOptions & EnvFileOption {
  const r = new Reader(raw, 'validate');
  // commander's `--no-env`: false when given, true otherwise.
  return given({ format: r.choice('format', VALIDATE_FORMATS), env: r.flag('env') !== false, dotenv: r.string('dotenv') });
}

export function planOptions(raw: RawOptions): PlanOptions & EnvFileOption {
  const r = new Reader(raw, 'plan');
  return given({
    ...planFlags(r),
    attribute: r.flag('attribute'),
    out: r.string('out'),
    format: r.choice('format', OUTPUT_FORMATS),
    detailedExitcode: r.flag('detailedExitcode'),
    dotenv: r.string('dotenv'),
  });
}

export function applyOptions(raw: RawOptions): ApplyOptions & EnvFileOption {
  const r = new Reader(raw, 'apply');
  return given({
    ...planFlags(r),
    plan: r.string('plan'),
    autoApprove: r.flag('autoApprove'),
    format: r.choice('format', OUTPUT_FORMATS),
    testChannels: r.flag('testChannels'),
    credentialsOut: r.string('credentialsOut'),
    leaseWait: r.numberOr('leaseWait', 0),
    // commander's `--no-lease`: false when given.
    lease: r.flag('lease') !== false,
    dotenv: r.string('dotenv'),
  });
}

export function routesOptions(raw: RawOptions): RoutesOptions & EnvFileOption {
  const r = new Reader(raw, 'routes');
  return given({
    ...clientFlags(r),
    live: r.flag('live'),
    account: r.strings('account'),
    format: r.choice('format', ROUTES_FORMATS),
    out: r.string('out'),
    base: r.string('base'),
    dotenv: r.string('dotenv'),
  });
}

/** `routes test`: its own options and those of `routes` (commander's `optsWithGlobals`). */
export function routeTestOptions(raw: RawOptions): RouteTestOptions & EnvFileOption {
  const r = new Reader(raw, 'routes test');
  return given({ ...routesOptions(raw), category: r.required('category'), severity: r.required('severity'), expect: r.string('expect') });
}

export function testChannelsOptions(raw: RawOptions): TestChannelsOptions & EnvFileOption {
  const r = new Reader(raw, 'test-channels');
  return given({
    ...clientFlags(r),
    account: r.strings('account'),
    target: r.strings('target'),
    format: r.choice('format', ['text', 'json'] as const),
    dotenv: r.string('dotenv'),
  });
}

export function mergeOptions(raw: RawOptions): MergeOptions {
  const r = new Reader(raw, 'merge');
  return given({ out: r.string('out'), format: r.choice('format', OUTPUT_FORMATS), detailedExitcode: r.flag('detailedExitcode') });
}

export function showOptions(raw: RawOptions): ShowOptions {
  return { format: new Reader(raw, 'show').choice('format', OUTPUT_FORMATS) };
}

export function exportOptions(raw: RawOptions): ExportOptions {
  const r = new Reader(raw, 'export');
  return given({
    ...clientFlags(r),
    out: r.required('out'),
    account: r.strings('account'),
    orgAccount: r.string('orgAccount'),
    kind: r.strings('kind'),
    force: r.flag('force') === true,
    dotenvOut: r.string('dotenvOut'),
  });
}

export function emulatorOptions(raw: RawOptions): EmulatorCliOptions {
  const r = new Reader(raw, 'emulator');
  return given({
    host: r.required('host'),
    port: r.numberOr('port', 0),
    state: r.string('state'),
    accounts: r.required('accounts'),
    keyId: r.string('keyId'),
    secret: r.string('secret'),
    rateLimit: r.numberOr('rateLimit', 120),
    faults: r.numberOr('faults', 0),
    faultSeed: r.numberOr('faultSeed', 1),
    key: r.strings('key'),
    activitySeed: r.numberOr('activitySeed', 1),
    activityRows: r.numberOr('activityRows', 96),
    predefinedPrefix: r.required('predefinedPrefix'),
    vendor: r.string('vendor'),
    failChannel: r.strings('failChannel'),
  });
}

export function unlockOptions(raw: RawOptions): UnlockOptions & EnvFileOption {
  const r = new Reader(raw, 'unlock');
  return given({ ...clientFlags(r), autoApprove: r.flag('autoApprove'), dotenv: r.string('dotenv') });
}
