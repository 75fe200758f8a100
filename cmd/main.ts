import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseShard, type Shard } from '../src/plan/core/shard.js';
import { DURATION_EXPECTED, parseDuration } from '../src/model/duration.js';
import { inertText } from '../src/model/inert.js';
import { packageRoot } from '../src/util/package-root.js';
import { EXIT, ExitError, type Io, LOG_LEVELS, logLevel, logLine, logs, processIo, withoutColor, withSecrets, write } from './io.js';
import * as parse from './options.js';

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name}: expected an integer from ${min} to ${max}`);
    return n;
  };
}

function shareArg(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a share from 0 to 1, e.g. 0.2');
  return n;
}

/** `--shard I/N` → {index, count}. */
function parseShardOption(value: string): Shard {
  const shard = parseShard(value);
  if (typeof shard === 'string') throw new InvalidArgumentError(shard);
  return shard;
}

/** Variables of a `.env` file: --dotenv, else `.env` beside postureops.yaml; the environment wins. */
const envFileOption = ['--dotenv <file>', 'read variables from FILE instead of .env beside postureops.yaml (the environment wins)'] as const;
async function envFor(io: Io, dir: string, opts: parse.EnvFileOption): Promise<Io> {
  const { withEnvFile } = await import('./env-file.js');
  return withEnvFile(io, dir, opts.dotenv);
}

/** `10m`, `2h`, `1h30m`, `90s` or seconds. */
function durationArg(value: string): number {
  const seconds = parseDuration(value);
  if (seconds === undefined) throw new InvalidArgumentError(DURATION_EXPECTED);
  return seconds;
}
const maxDurationOption = () =>
  new Option('--max-duration <duration>', 'refuse to start (exit 3, with the estimate) a run the rate-limit budget cannot finish within this (10m, 2h, 90s)').argParser(durationArg);

const formatOption = () =>
  new Option('--format <format>', 'output format').choices(parse.OUTPUT_FORMATS).default('text');
const clientOptions = (cmd: Command) =>
  cmd
    .option('--base-url <url>', 'service address (default: $SVC_BASE_URL)')
    .option('--verbose', 'log every request (method, path, status, time, bucket budget) and the rate-limit bookkeeping: --log-level info')
    .option('--max-wait <seconds>', 'longest wait for a rate-limit bucket to refill (default 900, or --max-duration when longer)', intArg('--max-wait', 0))
    .option('--concurrency <n>', 'requests in flight at once', intArg('--concurrency', 1, 32))
    .option('--max-response-size <size>', 'largest response (and list, over its pages) read from the service, e.g. 64M (default 32M, or $POSTUREOPS_MAX_RESPONSE_BYTES)')
    .option('--max-records <n>', 'most records the reads of one run may return, all lists of all accounts (default 50000, or $POSTUREOPS_MAX_RECORDS)')
    .option('--max-total-size <size>', 'most bytes the reads of one run may return, all lists of all accounts (default 32M, or $POSTUREOPS_MAX_TOTAL_BYTES)');

/** Exit codes (README.md, "Exit codes"): the lines of the top-level help. */
const EXIT_CODES: readonly [number, string][] = [
  [EXIT.ok, 'success; with plan --detailed-exitcode: no changes'],
  [EXIT.error, 'error: invalid configuration, service unreachable or refusing, a change that failed'],
  [EXIT.changes, 'changes present (plan --detailed-exitcode only)'],
  [EXIT.refused, 'plan refused: over a safety threshold or breaking a routing requirement (use --force), a saved plan is stale, edited or not what the repository asks for, lifecycle.preventDestroy, a change the rehearsal on the emulator refused, or over --max-duration'],
  [EXIT.leaseHeld, 'apply stopped before a write: another apply holds the lease (see --lease-wait, unlock), or this run lost it'],
  [EXIT.sigint, 'interrupted by SIGINT (Ctrl-C), after reporting what was done'],
  [EXIT.sigterm, 'interrupted by SIGTERM, after reporting what was done'],
];

/** `--help` ends with examples and the exit codes of the command. */
function helpAfter(examples: readonly string[], codes: readonly [number, string][]): string {
  const width = Math.max(...examples.map((e) => e.split('  # ')[0].length));
  const lines = examples.map((e) => {
    const [command, comment] = e.split('  # ');
    return `  $ ${comment ? `${command.padEnd(width)}  # ${comment}` : command}`;
  });
  return ['', 'Examples:', ...lines, '', 'Exit codes:', ...codes.map(([code, meaning]) => `  ${code}  ${meaning}`)].join('\n');
}

/** `onIo`: the io of the command about to run (its --log-level folded in): where an unexpected error goes. */
export function buildProgram(programIo: Io, setCode: (code: number) => void, onIo: (io: Io) => void = () => {}): Command {
  // --no-color is read before any command runs; every command prints through `io`.
  let io = programIo;
  const program = new Command('postureops')
    .description('Security Posture Service configuration as code: validate, plan, apply, export')
    .version(packageVersion(), '--version')
    .option('--no-color', 'no ANSI colours in any output (as NO_COLOR=1 does; wins over FORCE_COLOR)')
    .addOption(new Option('--log-level <level>', 'how much goes to stderr, or to $POSTUREOPS_LOG_FILE: error, warn (default), info (every request, as --verbose), debug (stack traces too); default $POSTUREOPS_LOG').choices(LOG_LEVELS))
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => programIo.stdout.write(s),
      writeErr: (s) => programIo.stderr.write(s),
    })
    .exitOverride()
    .hook('preAction', () => {
      io = program.opts().color === false ? withoutColor(programIo) : programIo;
      // --log-level wins over POSTUREOPS_LOG, and travels with the environment every command reads.
      const level = program.opts().logLevel as string | undefined;
      if (level !== undefined) io = { ...io, env: { ...io.env, POSTUREOPS_LOG: level } };
      logLevel(io);
      onIo(io);
    })
    .addHelpText(
      'after',
      helpAfter(
        [
          'postureops validate examples',
          'postureops plan examples --detailed-exitcode',
          'postureops apply examples --auto-approve',
          'postureops export --out live --account prod',
          'postureops demo  # try everything against the built-in emulator',
        ],
        EXIT_CODES,
      ) + '\n\nRun postureops COMMAND --help for the options of a command.',
    );

  program
    .command('validate')
    .description('check the configuration offline (no network); exit 0 valid, 1 invalid')
    .argument('[dir]', 'configuration repository', '.')
    .addOption(new Option('--format <format>', 'output format').choices(parse.VALIDATE_FORMATS).default('text'))
    .option('--no-env', 'check everything but that ${env:...} variables are set (unset or empty ones are skipped)')
    .option(...envFileOption)
    .addHelpText(
      'after',
      helpAfter(
        ['postureops validate                       # the repository in the current folder', 'postureops validate config --no-env      # in CI without the secrets', 'postureops validate config --format github  # annotations for GitHub Actions'],
        [
          [EXIT.ok, 'valid (warnings allowed)'],
          [EXIT.error, 'invalid: the problems are listed with file:line:column'],
        ],
      ),
    )
    .action(async (dir: string, raw: parse.RawOptions) => {
      const opts = parse.validateOptions(raw);
      const { validateCommand } = await import('./commands/validate.js');
      setCode(await validateCommand(await envFor(io, dir, opts), dir, opts));
    });

  clientOptions(
    program
      .command('plan')
      .description('show what apply would change; never writes to the service')
      .argument('[dir]', 'configuration repository', '.')
      .option('--account <name>', 'only this account (repeatable)', collect)
      .option('--out <file>', 'save the plan for `apply --plan`')
      .addOption(formatOption())
      .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none')
      .option('--force', 'do not refuse a plan over the safety thresholds or one that breaks a routing requirement')
      .option('--rotate <selector>', 'push write-only secrets of [account/]Kind/name (globs allowed; repeatable)', collect)
      .option('--target <selector>', 'plan only [account/]Kind/name and what it depends on (globs allowed; repeatable)', collect)
      .option('--attribute', "read the audit log of the accounts with drift and show each drifted resource's entries")
      .addOption(maxDurationOption())
      .option('--changed-since <ref>', 'only the accounts whose documents changed between REF (git) and the working tree')
      .option('--shard <i/n>', "plan shard I of N: a deterministic share of the accounts, balanced by resource count", parseShardOption)
      .option('--no-rehearse', 'do not rehearse the plan on an emulator seeded with the live state (no request to the service either way)')
      .option(...envFileOption)
      .addHelpText(
        'after',
        helpAfter(
          [
            'postureops plan config --out plan.json  # then: postureops apply config --plan plan.json',
            'postureops plan config --changed-since origin/main --detailed-exitcode  # only the accounts a branch touches',
            'postureops plan config --shard 2/4 --out shard-2.json  # then: postureops merge shard-*.json',
          ],
          [
            [EXIT.ok, 'planned (with --detailed-exitcode: no changes)'],
            [EXIT.error, 'error: invalid configuration, service unreachable or refusing'],
            [EXIT.changes, 'changes present (only with --detailed-exitcode)'],
            [EXIT.refused, 'refused: over a safety threshold or a routing requirement fails after it (use --force), lifecycle.preventDestroy or a change the rehearsal refused (--force does not help), or over --max-duration'],
            [EXIT.sigint, 'interrupted by SIGINT (Ctrl-C); --out is not written'],
            [EXIT.sigterm, 'interrupted by SIGTERM; --out is not written'],
          ],
        ),
      ),
  ).action(async (dir: string, raw: parse.RawOptions) => {
    const opts = parse.planOptions(raw);
    const { planCommand } = await import('./commands/plan.js');
    setCode(await planCommand(await envFor(io, dir, opts), dir, opts));
  });

  clientOptions(
    program
      .command('apply')
      .description('converge the live state to the configuration (or to a saved plan)')
      .argument('[dir]', 'configuration repository', '.')
      .option('--plan <file>', 'execute this saved plan: its changes are derived again from DIR and the live state, refused unless equal (POSTUREOPS_PLAN_KEY: its signature too)')
      .option('--auto-approve', 'do not ask for confirmation')
      .option('--force', 'apply a plan over the safety thresholds')
      .option('--account <name>', 'only this account (repeatable)', collect)
      .option('--rotate <selector>', 'push write-only secrets of [account/]Kind/name (repeatable)', collect)
      .option('--target <selector>', 'apply only [account/]Kind/name and what it depends on (globs allowed; repeatable)', collect)
      .option('--changed-since <ref>', 'only the accounts whose documents changed between REF (git) and the working tree')
      .option('--shard <i/n>', 'apply shard I of N of the accounts (as plan --shard)', parseShardOption)
      .option('--test-channels', 'test every created or changed alert channel through the service (counted by the pre-flight); a failed test of a channel a routing requirement relies on fails the apply')
      .option('--credentials-out <file>', 'write credentials the service issues on create (agent access tokens) to this file, mode 0600')
      .option('--lease-wait <seconds>', 'wait this long for another apply of an account to finish (0: stop at once, exit 4)', intArg('--lease-wait', 0), 0)
      .option('--no-lease', 'do not take the service-side lease (only when no other apply can run: it saves the lease\'s 4 requests and a renewal a minute)')
      .option('--no-rehearse', 'do not rehearse the plan on an emulator seeded with the live state first (a change it refuses stops the apply before its first write, exit 3)')
      .addOption(maxDurationOption())
      .addOption(formatOption())
      .option(...envFileOption)
      .addHelpText(
        'after',
        helpAfter(
          [
            'postureops apply config                 # shows the plan, asks for yes on a terminal',
            'postureops apply config --auto-approve  # in CI',
            'postureops apply config --plan plan.json',
          ],
          [
            [EXIT.ok, 'every change done (or nothing to do)'],
            [EXIT.error, 'error, or a change failed (the report says which, and why), or with --test-channels a channel a routing requirement relies on failed its test'],
            [EXIT.refused, 'refused before the first write: over a safety threshold (use --force), lifecycle.preventDestroy, a change the rehearsal refused (see --no-rehearse), the saved plan is stale, edited (its signature) or not what the repository asks for, or over --max-duration'],
            [EXIT.leaseHeld, 'stopped before its first write: another apply holds the lease (see --lease-wait, unlock); or stopped before a later write: the lease was freed or taken over (the report says what was done)'],
            [EXIT.sigint, 'interrupted by SIGINT (Ctrl-C): the report of what was done, then exit'],
            [EXIT.sigterm, 'interrupted by SIGTERM: the report of what was done, then exit'],
          ],
        ),
      ),
  ).action(async (dir: string, raw: parse.RawOptions) => {
    const opts = parse.applyOptions(raw);
    const { applyCommand } = await import('./commands/apply.js');
    setCode(await applyCommand(await envFor(io, dir, opts), dir, opts));
  });

  // Routing maps (README.md, "Routing"): offline by default; --live reads channels and rules.
  const routes = clientOptions(
    program
      .command('routes')
      .description('who is alerted for what: per account, the channels an alert of each event category and severity reaches, and through which rules')
      .argument('[dir]', 'configuration repository', '.')
      .option('--live', 'from the live state (one list each of channels, alert rules, report rules and resource groups per account) instead of the configuration')
      .option('--account <name>', 'only this account (repeatable)', collect)
      .addOption(new Option('--format <format>', 'output format (html: one self-contained page, for a browser)').choices(parse.ROUTES_FORMATS).default('text'))
      .option('--out <file>', 'write the output to FILE instead of stdout (whole, or not at all)')
      .option('--base <ref>', 'compare with the routing of the configuration at this git commit, branch or tag: the cells that change are marked (html, text)')
      .option(...envFileOption)
      .addHelpText(
        'after',
        helpAfter(
          [
            'postureops routes examples                    # the configuration, offline',
            'postureops routes examples --format markdown  # a Mermaid graph per account',
            'postureops routes examples --format html --out routing.html --base origin/main  # a page for a browser, changes marked',
            'postureops routes examples --live --account prod --format json',
            'postureops routes test --help                 # one cell: its channels and rules',
          ],
          [
            [EXIT.ok, 'shown'],
            [EXIT.error, 'invalid configuration, or the service unreachable or refusing (--live)'],
          ],
        ),
      ),
  ).action(async (dir: string, raw: parse.RawOptions) => {
    const opts = parse.routesOptions(raw);
    const { routesCommand } = await import('./commands/routes.js');
    setCode(await routesCommand(await envFor(io, dir, opts), dir, opts));
  });
  // --account, --live, --format and the client options are routes' own: `routes test` reads them from it.
  routes
    .command('test')
    .description('the channels and rules an alert of one account (--account), event category and severity reaches; with --expect, exit 1 when the set differs')
    .argument('[dir]', 'configuration repository', '.')
    .requiredOption('--category <category>', 'event category, e.g. Cloud')
    .requiredOption('--severity <severity>', 'critical, high, medium, low, info (or 1..5)')
    .option('--expect <channels>', "comma-separated channel names the alert must reach, exactly ('' for none)")
    .addHelpText(
      'after',
      helpAfter(
        [
          'postureops routes test examples --account prod --category Cloud --severity critical',
          'postureops routes test examples --account staging --category App --severity low --expect ""  # must reach nothing',
          'postureops routes test examples --account prod --category Cloud --severity critical --live --format json',
        ],
        [
          [EXIT.ok, 'shown; with --expect: the channels are exactly those expected'],
          [EXIT.error, 'with --expect: the channels differ (missing and unexpected ones are named); or an error'],
        ],
      ),
    )
    .action(async (dir: string, _opts, cmd: Command) => {
      const { routeTestCommand } = await import('./commands/routes.js');
      const opts = parse.routeTestOptions(cmd.optsWithGlobals());
      setCode(await routeTestCommand(await envFor(io, dir, opts), dir, opts));
    });

  clientOptions(
    program
      .command('test-channels')
      .description("send the service's test notification to the live alert channels --target names, without applying anything")
      .argument('[dir]', 'configuration repository', '.')
      .option('--target <selector>', '[account/]AlertChannel/name to test (globs allowed; repeatable; required)', collect)
      .option('--account <name>', 'only this account (repeatable)', collect)
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
      .option(...envFileOption)
      .addHelpText(
        'after',
        helpAfter(
          [
            'postureops test-channels examples --target prod/AlertChannel/oncall-pagerduty',
            "postureops test-channels examples --target 'AlertChannel/*' --account staging --format json",
          ],
          [
            [EXIT.ok, 'every test succeeded'],
            [EXIT.error, 'a test failed (the channel and the service\'s answer are named), no live channel matches, or an error'],
          ],
        ),
      ),
  ).action(async (dir: string, raw: parse.RawOptions) => {
    const opts = parse.testChannelsOptions(raw);
    const { testChannelsCommand } = await import('./commands/test-channels.js');
    setCode(await testChannelsCommand(await envFor(io, dir, opts), dir, opts));
  });

  program
    .command('merge')
    .description("merge the saved plans of the shards of one run (plan --shard I/N --out FILE) into one plan")
    .argument('<files...>', 'the shards\' plan files')
    .option('--out <file>', 'save the merged plan (for `apply --plan`)')
    .addOption(formatOption())
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none')
    .addHelpText(
      'after',
      helpAfter(
        ['postureops merge shard-1.json shard-2.json --format markdown', 'postureops merge plans/*.json --out plan.json --detailed-exitcode'],
        [
          [EXIT.ok, 'merged (with --detailed-exitcode: no changes)'],
          [EXIT.error, 'the files are not the shards of one plan: unreadable, from different configurations, overlapping, or a shard missing'],
          [EXIT.changes, 'changes present (only with --detailed-exitcode)'],
          [EXIT.refused, 'a shard was refused: over a safety threshold, or lifecycle.preventDestroy; or a shard plan was edited (its checksum, or its signature with POSTUREOPS_PLAN_KEY)'],
        ],
      ),
    )
    .action(async (files: string[], raw: parse.RawOptions) => {
      const { mergeCommand } = await import('./commands/merge.js');
      setCode(await mergeCommand(io, files, parse.mergeOptions(raw)));
    });

  program
    .command('show')
    .description('render a saved plan (plan --out, a shard\'s, a merged one) without reading the service')
    .argument('<plan>', 'the saved plan file')
    .addOption(formatOption())
    .addHelpText(
      'after',
      helpAfter(
        ['postureops show plan.json', 'postureops show plan.json --format markdown  # for a review comment', 'POSTUREOPS_PLAN_KEY=... postureops show plan.json  # verifies its signature too'],
        [
          [EXIT.ok, 'shown'],
          [EXIT.error, 'not a plan file: unreadable, not JSON, another format version, damaged'],
          [EXIT.refused, 'the file was edited after it was saved (its checksum, or its signature with POSTUREOPS_PLAN_KEY): not shown'],
        ],
      ),
    )
    .action(async (file: string, raw: parse.RawOptions) => {
      const { showCommand } = await import('./commands/show.js');
      setCode(await showCommand(io, file, parse.showOptions(raw)));
    });

  clientOptions(
    program
      .command('export')
      .description("write accounts' live configuration as a postureops repository")
      .requiredOption('--out <dir>', 'target folder (must be empty or absent unless --force)')
      .option('--account <name>', 'account to export (repeatable)', collect)
      .option('--org-account <name>', 'also export organization-level data under this name')
      .option('--kind <kind>', 'only this kind (repeatable)', collect)
      .option('--force', 'replace a previous export in the target folder (nothing else: a folder holding .git or files export did not write is refused) and an existing --dotenv-out file')
      .option('--dotenv-out <file>', 'also write the current values of the secrets the service returns in clear to FILE (mode 0600)')
      .addHelpText(
        'after',
        helpAfter(
          [
            'postureops export --out live --account prod --account staging',
            'postureops export --out live --account prod --kind AlertRule',
            'postureops export --out live --account prod --dotenv-out live.env   # outside the folder that goes to git',
          ],
          [
            [EXIT.ok, 'exported'],
            [EXIT.error, 'error: service unreachable or refusing, folder not writable, or a live resource that cannot be exported'],
            [EXIT.sigint, 'interrupted by SIGINT (Ctrl-C); nothing is written'],
            [EXIT.sigterm, 'interrupted by SIGTERM; nothing is written'],
          ],
        ),
      ),
  ).action(async (raw: parse.RawOptions) => {
    const { exportCommand } = await import('./commands/export.js');
    setCode(await exportCommand(io, parse.exportOptions(raw)));
  });

  program
    .command('emulator')
    .description('serve an emulator of the service API v2 on loopback')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', intArg('--port', 0, 65535), 0)
    .option('--state <file>', 'keep data in this file across restarts')
    .option('--accounts <names>', 'comma-separated account names; the first is the primary', 'prod,staging')
    .option('--key-id <id>', 'API key id (default: generated)')
    .option('--secret <secret>', 'API key secret (default: generated)')
    .option('--rate-limit <n>', 'requests per hour per bucket', intArg('--rate-limit', 1), 120)
    .option('--faults <share>', 'share of requests that fail (429, 500, 503, dropped, committed-then-500)', shareArg, 0)
    .option('--fault-seed <n>', 'seed of the fault sequence', intArg('--fault-seed', 0), 1)
    .option('--key <spec>', 'another API key, ID:SECRET:ROLE[:ACCOUNTS[:USER]], ROLE org-admin|sub-account-admin|account-user (repeatable)', collect)
    .option('--activity-seed <n>', 'seed of the generated activity records', intArg('--activity-seed', 0), 1)
    .option('--activity-rows <n>', 'generated activity records per day, per dataset and account', intArg('--activity-rows', 1), 96)
    .option('--predefined-prefix <prefix>', 'vendor prefix of the predefined alert profiles and queries (LW_ as on the real service)', 'SVC_')
    .option('--vendor <name>', 'vendor name: owner of predefined queries and policies, <vendor>-global-<n> policy ids (default: the prefix without _)')
    .option('--fail-channel <name>', 'an alert channel (name or intgGuid) whose delivery fails: state.ok false, its test 400 (repeatable)', collect)
    .addHelpText(
      'after',
      helpAfter(
        [
          'postureops emulator --port 4010 --accounts prod,staging --key-id K --secret S',
          'postureops emulator --state emu.json --fail-channel ops-pager   # keeps its data; that channel fails until started without it',
          'postureops emulator --faults 0.2 --rate-limit 30',
        ],
        [
          [EXIT.ok, 'stopped with Ctrl-C'],
          [EXIT.error, 'could not start (bad option, port in use)'],
        ],
      ),
    )
    .action(async (raw: parse.RawOptions) => {
      const { emulatorCommand } = await import('./commands/emulator.js');
      setCode(await emulatorCommand(io, parse.emulatorOptions(raw)));
    });

  clientOptions(
    program
      .command('unlock')
      .description('free the apply lease whose apply is gone (shows its holder, then asks; marks it freed)')
      .argument('[dir]', 'configuration repository (its first account by name holds the lease)', '.')
      .option('--auto-approve', 'do not ask for confirmation')
      .addHelpText(
        'after',
        helpAfter(
          [
            'postureops unlock config                               # shows the holders, asks for yes on a terminal',
            'postureops unlock config --auto-approve                 # in CI, after a job killed outright',
          ],
          [
            [EXIT.ok, 'freed (or no lease was held)'],
            [EXIT.error, 'error, or not confirmed (no terminal and no --auto-approve): nothing was freed'],
            [EXIT.sigint, 'interrupted by SIGINT (Ctrl-C)'],
            [EXIT.sigterm, 'interrupted by SIGTERM'],
          ],
        ),
      ),
  ).action(async (dir: string, raw: parse.RawOptions) => {
    const opts = parse.unlockOptions(raw);
    const { unlockCommand } = await import('./commands/unlock.js');
    setCode(await unlockCommand(await envFor(io, dir, opts), dir, opts));
  });

  program
    .command('demo')
    .description('the emulator in-process; the examples planned, applied and planned again')
    .addHelpText(
      'after',
      helpAfter(
        ['postureops demo', 'npm start   # the same, from a checkout'],
        [
          [EXIT.ok, 'the second plan shows no changes'],
          [EXIT.error, 'something failed on the way'],
        ],
      ),
    )
    .action(async () => {
      const { demoCommand } = await import('./commands/demo.js');
      setCode(await demoCommand(io, {}));
    });

  return program;
}

/** Runs the CLI and returns the exit code. Every expected failure becomes a message, never a stack trace. */
export async function run(argv: string[], given: Io = processIo()): Promise<number> {
  // Everything the command prints is masked for the values its configuration reads.
  const io = withSecrets(given);
  let code: number = EXIT.ok;
  // The io of the running command (its --log-level folded into the environment): where a stack goes.
  let commandIo = io;
  const program = buildProgram(
    io,
    (c) => {
      code = c;
    },
    (used) => {
      commandIo = used;
    },
  );
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; usage errors have already been printed by commander.
      return err.exitCode === 0 ? EXIT.ok : EXIT.error;
    }
    if (err instanceof ExitError) {
      write(io.stderr, `postureops: ${inertText(err.message)}`);
      return err.code;
    }
    return reportUnexpected(commandIo, err);
  }
}

/** API errors, file errors and the like carry a message made for people; a stack only on request. */
async function reportUnexpected(io: Io, err: unknown): Promise<number> {
  const [{ DiagnosticsError }, { ApiError, ServiceUnreachable }] = await Promise.all([import('../src/model/diagnostics.js'), import('../src/api/types.js')]);
  if (err instanceof DiagnosticsError) {
    const { printDiagnostics } = await import('./pipeline.js');
    await printDiagnostics(io, err.diagnostics);
    return EXIT.error;
  }
  // Unreachable service, refused key, missing right: where, what to set, what next.
  const errors = err instanceof ApiError || err instanceof ServiceUnreachable ? await import('./errors.js') : undefined;
  const explained =
    err instanceof ServiceUnreachable ? errors?.explainUnreachable(err) : err instanceof ApiError ? errors?.explainApiError(err) : undefined;
  // One line: the message may quote the service (src/model/inert.ts).
  write(io.stderr, `postureops: ${inertText(explained ?? (err instanceof Error ? err.message : String(err)))}`);
  // The stack only at debug (--log-level debug, POSTUREOPS_LOG=debug), to the log file when one is set.
  if (err instanceof Error && err.stack && logs(safeLevel(io), 'debug')) logLine(io, 'debug', 'debug', err.stack, (t) => write(io.stderr, t));
  return EXIT.error;
}

/** The level for the last word on an error: an unusable POSTUREOPS_LOG is not a second error. */
function safeLevel(io: Io) {
  try {
    return logLevel(io);
  } catch {
    return 'warn' as const;
  }
}
