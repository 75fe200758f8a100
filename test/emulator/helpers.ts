// Test helpers: start an emulator, get a token, call it with plain fetch.

import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body text, sent as is. */
  raw?: string;
  account?: string;
  org?: boolean;
  token?: string | null;
  headers?: Record<string, string>;
}

export interface Harness {
  emu: RunningEmulator;
  token: string;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  exchange(body: unknown, secret?: string): Promise<Reply>;
  close(): Promise<void>;
}

export async function parse(res: Response): Promise<Reply> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

export async function boot(options: EmulatorOptions = {}): Promise<Harness> {
  const emu = await startEmulator(options);
  const exchange = async (body: unknown, secret = emu.secret): Promise<Reply> =>
    parse(
      await fetch(`${emu.url}/api/v2/access/tokens`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-SVC-UAKS': secret },
        body: JSON.stringify(body),
      }),
    );
  const first = await exchange({ keyId: emu.keyId, expiryTime: 3600 });
  if (first.status !== 201) throw new Error(`token exchange failed: ${first.status}`);
  const h: Harness = {
    emu,
    token: first.body.token,
    exchange,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(opts.headers ?? {}) };
      const token = opts.token === undefined ? h.token : opts.token;
      if (token !== null) headers.Authorization = `Bearer ${token}`;
      if (opts.account !== undefined) headers['Account-Name'] = opts.account;
      if (opts.org) headers['Org-Access'] = 'true';
      const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      return parse(await fetch(`${emu.url}/api/v2/${path}`, { method, headers, body }));
    },
    close: () => emu.close(),
  };
  return h;
}

export const slack = (name: string, url = 'https://hooks.slack.com/services/T/B/X') => ({
  name,
  type: 'SlackChannel',
  enabled: 1,
  data: { slackUrl: url },
});
