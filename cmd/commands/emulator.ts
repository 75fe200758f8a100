import { resolve } from 'node:path';
import { EXIT, ExitError, type Io, write } from '../io.js';

export interface EmulatorCliOptions {
  host: string;
  port: number;
  state?: string;
  accounts: string;
  keyId?: string;
  secret?: string;
  rateLimit: number;
  faults: number;
  faultSeed: number;
  /** `ID:SECRET:ROLE[:ACCOUNTS[:USER]]`, repeatable. */
  key?: string[];
  activitySeed: number;
  activityRows: number;
  predefinedPrefix: string;
  vendor?: string;
  /** Alert channels (names or intgGuids) that fail, repeatable. */
  failChannel?: string[];
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Serves until SIGINT/SIGTERM. */
export async function emulatorCommand(io: Io, opts: EmulatorCliOptions): Promise<number> {
  const accounts = opts.accounts
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (accounts.length === 0) throw new ExitError(EXIT.error, '--accounts needs at least one name, e.g. prod,staging');
  if (!(opts.faults >= 0 && opts.faults <= 1)) throw new ExitError(EXIT.error, `--faults ${opts.faults}: expected a share between 0 and 1`);
  if (!LOOPBACK.test(opts.host)) {
    write(io.stderr, `warning: --host ${opts.host} is not a loopback address; the emulator speaks plain HTTP`);
  }
  const { startEmulator, parseKeySpec } = await import('../../src/emulator/index.js');
  let keys;
  try {
    keys = (opts.key ?? []).map(parseKeySpec);
  } catch (err) {
    throw new ExitError(EXIT.error, (err as Error).message);
  }
  let emu;
  try {
    emu = await startEmulator({
      keys,
      activitySeed: opts.activitySeed,
      activityRows: opts.activityRows,
      predefinedPrefix: opts.predefinedPrefix,
      host: opts.host,
      port: opts.port,
      accounts,
      keyId: opts.keyId,
      secret: opts.secret,
      rateLimit: opts.rateLimit,
      faults: opts.faults,
      faultSeed: opts.faultSeed,
      statePath: opts.state ? resolve(io.cwd, opts.state) : undefined,
      ...(opts.vendor !== undefined ? { vendor: opts.vendor } : {}),
      ...(opts.failChannel !== undefined ? { failChannels: opts.failChannel } : {}),
    });
  } catch (err) {
    // Bad options and unreadable state files are the user's to fix: one line, no stack.
    const message = (err as Error).message;
    if (message.startsWith('emulator')) throw new ExitError(EXIT.error, message);
    throw err;
  }
  write(
    io.stdout,
    [
      `Security Posture Service emulator listening on ${emu.url}`,
      `accounts: ${emu.accounts.join(', ')}${opts.state ? `; state in ${opts.state}` : ''}`,
      ...(opts.failChannel !== undefined && opts.failChannel.length > 0 ? [`failing alert channels: ${opts.failChannel.join(', ')}`] : []),
      '',
      'To talk to it:',
      `  export SVC_BASE_URL=${emu.url}`,
      `  export SVC_API_KEY_ID=${emu.keyId}`,
      `  export SVC_API_SECRET=${emu.secret}`,
      ...(emu.keys.length > 1
        ? ['', 'keys:', ...emu.keys.map((k) => `  ${k.keyId}: ${k.role}${k.accounts.length > 0 ? ` of ${k.accounts.join(', ')}` : ''}, user ${k.user}`)]
        : []),
      '',
      `API reference (OpenAPI, no login): ${emu.url}/api/v2/docs`,
      '',
      'Press Ctrl-C to stop.',
    ].join('\n'),
  );
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await emu.close();
  return EXIT.ok;
}
