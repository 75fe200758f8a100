// The service emulator, importable in-process: `startEmulator(options)` serves API v2 on loopback.

import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { systemClock, type Clock } from './clock.js';
import { newKeyId, newSecret } from './ids.js';
import { resolveKeys, type ApiKey, type KeyOptions } from './keys.js';
import { Service, type ReceivedRequest } from './server.js';
import type { ExtraType } from './http.js';
import { PREDEFINED_PROFILE_PREFIX } from './service-facts.js';
import { seededPrefix, seedScope } from './seeding.js';
import { Store } from './store.js';

/** Rate limits "off" for a seeded emulator: a bucket of one billion requests an hour. */
const UNLIMITED = 1_000_000_000;

export { manualClock, scaledClock, systemClock, type Clock, type ManualClock } from './clock.js';
export { MAX_BODY_BYTES, type ReceivedRequest } from './server.js';
export type { ExtraType } from './http.js';
export { PREDEFINED_PROFILES, predefinedProfiles } from './predefined-profiles.js';
export { SPELLING_HEADER } from './http.js';
export { parseKeySpec, ROLES, type ApiKey, type KeyOptions, type Role } from './keys.js';

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Sub-accounts of the organization; the first is the primary account. Default ['prod', 'staging']. */
  accounts?: string[];
  /** The org-admin API key; generated when absent. */
  keyId?: string;
  secret?: string;
  /** Requests per hour per bucket. Default 120. */
  rateLimit?: number;
  /** Share of requests (0..1) that fail on purpose. Default 0. */
  faults?: number;
  /** Seed of the fault PRNG. Default 1. */
  faultSeed?: number;
  /** Keeps the data across restarts. */
  statePath?: string;
  /** Token expiry and rate-limit buckets read this clock. Default: system time. */
  clock?: Clock;
  /** The user of the org-admin key (keyId/secret): written as createdOrUpdatedBy and in audit records. Default admin@example.com. */
  user?: string;
  /**
   * More keys, with the roles of seed 000 (org-admin, sub-account-admin of listed sub-accounts,
   * account-user). A key's user defaults to `<keyId>@example.com`; keys of one user share its buckets.
   */
  keys?: KeyOptions[];
  /** Seed of the generated activity and evaluation records. Default 1. */
  activitySeed?: number;
  /** Generated records per day, per dataset and account (one every round(24 h / N)). Default 96. */
  activityRows?: number;
  /** Types of the real service the emulator's tables lack: stored as sent, shown as stored but for `masked`. */
  extraTypes?: ExtraType[];
  /** Sees every request with a well-formed body (method, path, Account-Name, body), before it is checked. */
  onRequest?: (request: ReceivedRequest) => void;
  /**
   * Vendor prefix of the predefined alert profiles (`<prefix>BASE_PROFILE`, ...). Default `SVC_`;
   * `LW_` emulates the real service, whose prefix is not the tool's default.
   */
  predefinedPrefix?: string;
  /**
   * The vendor's name: `owner` of the predefined queries and policies, and (in lower case) the start
   * of predefined policy ids `<vendor>-global-<n>`. Default: the prefix without its `_` (`SVC`);
   * `Lacework` with `LW_` emulates the real service.
   */
  vendor?: string;
  /**
   * Alert channels (by name, every channel of that name in every account, or by intgGuid) that fail
   * from the start: `state.ok` false with `details.message`, their test answers 400 and their
   * `lastSuccessfulTime` stops moving. A channel left out heals.
   */
  failChannels?: string[];
  /**
   * Seeds accounts from list bodies as a client fetched them (a rehearsal): account → list path
   * (`AlertChannels`, `Exceptions?policyId=P`) → list body `{data: [...]}` (or its records). Records
   * are taken as they are: unknown types and members carried, nothing refused. The emulator then runs
   * without rate limits (one billion requests an hour per bucket) or faults; giving `rateLimit` or
   * `faults` too is an error. Data of a `statePath` is replaced for the seeded collections. Without
   * `predefinedPrefix`, the prefix is the one the seeded alert profiles show (their root's id up to
   * its first `_`), else the default.
   */
  seedFromLists?: Record<string, Record<string, unknown>>;
}

export interface RunningEmulator {
  /** Base URL, e.g. http://127.0.0.1:PORT. */
  url: string;
  keyId: string;
  secret: string;
  accounts: string[];
  /** Every key, the default org-admin key first, with its user and role. */
  keys: ApiKey[];
  close(): Promise<void>;
  /** Requests received so far (faulted ones included). */
  requestCount(): number;
  /**
   * In-process only: the size of every rate-limit bucket from now on (a simulation sets up its live
   * state without limits, then measures at the real budget; buckets first used after it start full).
   */
  setRateLimit(limit: number): void;
  /**
   * Pass-through: stores `records` as given and appends them to the list response of `collection`
   * (e.g. `AlertChannels`) in `account`, unchecked. For what the live service holds beyond the seeds.
   */
  seed(account: string, collection: string, records: readonly unknown[]): void;
  /** Makes the alert channels of that name (or intgGuid) fail from now on, with `details` as their text. */
  failChannel(name: string, details?: string): void;
  /** Heals the alert channels of that name (or intgGuid); false when none was failing under it. */
  healChannel(name: string): boolean;
}

function checkOptions(o: EmulatorOptions): void {
  const problems: string[] = [];
  const accounts = o.accounts ?? [];
  if (o.accounts !== undefined && accounts.length === 0) problems.push('accounts must name at least one account');
  const seen = new Set<string>();
  for (const a of accounts) {
    if (a.trim() === '' || a !== a.trim()) problems.push(`account name ${JSON.stringify(a)} is empty or has surrounding spaces`);
    if (seen.has(a.toLowerCase())) problems.push(`account ${a} is listed twice (names are case-insensitive)`);
    seen.add(a.toLowerCase());
  }
  if (o.rateLimit !== undefined && !(Number.isInteger(o.rateLimit) && o.rateLimit > 0)) {
    problems.push(`rateLimit must be a positive integer, got ${o.rateLimit}`);
  }
  if (o.faults !== undefined && !(o.faults >= 0 && o.faults <= 1)) problems.push(`faults must be between 0 and 1, got ${o.faults}`);
  if (o.faultSeed !== undefined && !Number.isInteger(o.faultSeed)) problems.push(`faultSeed must be an integer, got ${o.faultSeed}`);
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535)) {
    problems.push(`port must be an integer 0..65535, got ${o.port}`);
  }
  if (o.keyId !== undefined && o.keyId === '') problems.push('keyId must not be empty');
  if (o.secret !== undefined && o.secret === '') problems.push('secret must not be empty');
  if (o.activitySeed !== undefined && !Number.isInteger(o.activitySeed)) problems.push(`activitySeed must be an integer, got ${o.activitySeed}`);
  if (o.activityRows !== undefined && !(Number.isInteger(o.activityRows) && o.activityRows > 0 && o.activityRows <= 86_400_000)) {
    problems.push(`activityRows must be an integer 1..86400000 (records per day), got ${o.activityRows}`);
  }
  if (o.predefinedPrefix !== undefined && !/^[A-Za-z][A-Za-z0-9]*_$/.test(o.predefinedPrefix)) {
    problems.push(`predefinedPrefix must be letters and digits ending in _ (e.g. LW_), got ${JSON.stringify(o.predefinedPrefix)}`);
  }
  if (o.vendor !== undefined && !/^[A-Za-z][A-Za-z0-9]*$/.test(o.vendor)) problems.push(`vendor must be letters and digits (e.g. Lacework), got ${JSON.stringify(o.vendor)}`);
  for (const name of o.failChannels ?? []) if (typeof name !== 'string' || name.trim() === '') problems.push(`failChannels: ${JSON.stringify(name)} is not a channel name`);
  if (o.seedFromLists !== undefined) {
    if (o.rateLimit !== undefined || o.faults !== undefined) problems.push('seedFromLists runs without rate limits or faults: leave rateLimit and faults out');
    for (const a of Object.keys(o.seedFromLists)) {
      if (!(o.accounts ?? ['prod', 'staging']).some((x) => x.toLowerCase() === a.toLowerCase())) problems.push(`seedFromLists: ${a} is not one of the accounts`);
    }
  }
  if (problems.length > 0) throw new Error(`emulator: invalid options: ${problems.join('; ')}`);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  checkOptions(options);
  const host = options.host ?? '127.0.0.1';
  const accounts = [...(options.accounts ?? ['prod', 'staging'])];
  const keyId = options.keyId ?? newKeyId();
  const secret = options.secret ?? newSecret();
  // Opening the store first: an unreadable state file stops the start before a port is taken.
  const keys = resolveKeys([{ keyId, secret, role: 'org-admin', user: options.user ?? 'admin@example.com' }, ...(options.keys ?? [])], accounts);
  const store = Store.open(accounts, options.statePath);
  // Seeded without a prefix: the one the seeded profiles show (a rehearsal of the real service's LW_).
  const predefinedPrefix = options.predefinedPrefix ?? (options.seedFromLists ? seededPrefix(options.seedFromLists) : undefined) ?? PREDEFINED_PROFILE_PREFIX;
  const vendor = options.vendor ?? predefinedPrefix.slice(0, -1);
  const seeded = options.seedFromLists !== undefined;
  const service = new Service({
    accounts,
    keys,
    activitySeed: options.activitySeed ?? 1,
    activityRows: options.activityRows ?? 96,
    predefinedPrefix,
    vendor,
    clock: options.clock ?? systemClock,
    rateLimit: seeded ? UNLIMITED : (options.rateLimit ?? 120),
    faults: options.faults ?? 0,
    ...(options.failChannels ? { failChannels: options.failChannels } : {}),
    ...(seeded ? { carryUnknown: true } : {}),
    faultSeed: options.faultSeed ?? 1,
    store,
    ...(options.extraTypes ? { extraTypes: options.extraTypes } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });

  for (const [account, lists] of Object.entries(options.seedFromLists ?? {})) {
    const name = accounts.find((a) => a.toLowerCase() === account.toLowerCase()) as string;
    seedScope(store.account(name), lists, { prefix: predefinedPrefix, vendor, passthrough: (path, records) => service.seed(name, path, records) });
  }
  if (seeded) store.save();

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    service.handle(req, res).catch((err: Error) => {
      process.stderr.write(`emulator: request failed: ${err.message}\n`);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"message":"Internal Server Error"}');
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await listen(server, options.port ?? 0, host);

  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('emulator: server has no TCP address');
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    keyId,
    secret,
    accounts,
    keys,
    requestCount: () => service.requestCount(),
    setRateLimit: (limit) => {
      if (!(Number.isInteger(limit) && limit > 0)) throw new Error(`rateLimit must be a positive integer, got ${limit}`);
      service.setRateLimit(limit);
    },
    seed: (account, collection, records) => service.seed(account, collection, records),
    failChannel: (name, details) => service.failChannel(name, details),
    healChannel: (name) => service.healChannel(name),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}
