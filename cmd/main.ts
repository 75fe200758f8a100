import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/util/package-root.js';
import { EXIT, ExitError, type Io, processIo, write } from './io.js';

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

/** Variables of a `.env` file: --env-file, else `.env` beside postureops.yaml; the environment wins. */
const envFileOption = ['--env-file <file>', 'read variables from FILE instead of .env beside postureops.yaml (the environment wins)'] as const;
async function envFor(io: Io, dir: string, opts: { envFile?: string }): Promise<Io> {
  const { withEnvFile } = await import('./env-file.js');
  return withEnvFile(io, dir, opts.envFile);
}

const formatOption = () =>
  new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text');
const clientOptions = (cmd: Command) =>
  cmd
    .option('--base-url <url>', 'service address (default: $SVC_BASE_URL)')
    .option('--verbose', 'log every request (method, path, status, time, bucket budget) to stderr')
    .option('--max-wait <seconds>', 'longest wait for a rate-limit bucket to refill', intArg('--max-wait', 0), 900)
    .option('--concurrency <n>', 'requests in flight at once', intArg('--concurrency', 1, 32));

export function buildProgram(io: Io, setCode: (code: number) => void): Command {
  const program = new Command('postureops')
    .description('Security Posture Service configuration as code: validate, plan, apply, export')
    .version(packageVersion(), '--version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();

  program
    .command('validate')
    .description('check the configuration offline (no network); exit 0 valid, 1 invalid')
    .argument('[dir]', 'configuration repository', '.')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'github']).default('text'))
    .option('--no-env', 'check everything but that ${env:...} variables are set (unset or empty ones are skipped)')
    .option(...envFileOption)
    .action(async (dir: string, opts) => {
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
      .option('--force', 'do not refuse a plan over the safety thresholds')
      .option('--rotate <selector>', 'push write-only secrets of [account/]Kind/name (globs allowed; repeatable)', collect)
      .option('--attribute', "read the audit log of the accounts with drift and show each drifted resource's entries")
      .option(...envFileOption),
  ).action(async (dir: string, opts) => {
    const { planCommand } = await import('./commands/plan.js');
    setCode(await planCommand(await envFor(io, dir, opts), dir, opts));
  });

  clientOptions(
    program
      .command('apply')
      .description('converge the live state to the configuration (or to a saved plan)')
      .argument('[dir]', 'configuration repository', '.')
      .option('--plan <file>', 'execute this saved plan (refused when the live state moved since)')
      .option('--auto-approve', 'do not ask for confirmation')
      .option('--force', 'apply a plan over the safety thresholds')
      .option('--account <name>', 'only this account (repeatable)', collect)
      .option('--rotate <selector>', 'push write-only secrets of [account/]Kind/name (repeatable)', collect)
      .option('--test-channels', 'test every created or changed alert channel through the service')
      .option('--credentials-out <file>', 'write credentials the service issues on create (agent access tokens) to this file, mode 0600')
      .addOption(formatOption())
      .option(...envFileOption),
  ).action(async (dir: string, opts) => {
    const { applyCommand } = await import('./commands/apply.js');
    setCode(await applyCommand(await envFor(io, dir, opts), dir, opts));
  });

  clientOptions(
    program
      .command('export')
      .description("write accounts' live configuration as a postureops repository")
      .requiredOption('--out <dir>', 'target folder (must be empty or absent unless --force)')
      .option('--account <name>', 'account to export (repeatable)', collect)
      .option('--org-account <name>', 'also export organization-level data under this name')
      .option('--kind <kind>', 'only this kind (repeatable)', collect)
      .option('--force', 'replace a non-empty target folder (and an existing --env-file)')
      .option('--env-file <file>', 'also write the current values of the secrets the service returns in clear to FILE (mode 0600)'),
  ).action(async (opts) => {
    const { exportCommand } = await import('./commands/export.js');
    setCode(await exportCommand(io, opts));
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
    .action(async (opts) => {
      const { emulatorCommand } = await import('./commands/emulator.js');
      setCode(await emulatorCommand(io, opts));
    });

  program
    .command('demo')
    .description('the emulator in-process; the examples planned, applied and planned again')
    .action(async () => {
      const { demoCommand } = await import('./commands/demo.js');
      setCode(await demoCommand(io, {}));
    });

  return program;
}

/** Runs the CLI and returns the exit code. Every expected failure becomes a message, never a stack trace. */
export async function run(argv: string[], io: Io = processIo()): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; usage errors have already been printed by commander.
      return err.exitCode === 0 ? EXIT.ok : EXIT.error;
    }
    if (err instanceof ExitError) {
      write(io.stderr, `postureops: ${err.message}`);
      return err.code;
    }
    return reportUnexpected(io, err);
  }
}

/** API errors, file errors and the like carry a message made for people; a stack only on request. */
async function reportUnexpected(io: Io, err: unknown): Promise<number> {
  const { DiagnosticsError } = await import('../src/model/diagnostics.js');
  if (err instanceof DiagnosticsError) {
    const { printDiagnostics } = await import('./pipeline.js');
    await printDiagnostics(io, err.diagnostics);
    return EXIT.error;
  }
  write(io.stderr, `postureops: ${err instanceof Error ? err.message : String(err)}`);
  if (io.env.POSTUREOPS_DEBUG && err instanceof Error && err.stack) write(io.stderr, err.stack);
  return EXIT.error;
}
