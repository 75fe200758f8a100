// The response size limit under load, for `npm run bench` (never asserted in tests): a service on
// loopback that answers the alert channel list of an account with a body of a given size (records of
// ~200 bytes, streamed without a Content-Length, or announced with one), every other list empty. The
// CLI runs `plan` in a child process (measure() in curve.ts: peak RSS, CPU, wall time, exit code).
// What it shows: a 400 MB body is refused with memory bounded by the limit, not by the body; a body
// just under the limit is read, parsed and planned.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../src/api/options.js';
import { packageRoot } from '../../src/util/package-root.js';
import { measure, type Usage } from './curve.js';

const MB = 1024 * 1024;

export interface SizeCase {
  what: string;
  /** Bytes the service sends (or announces) for the list. */
  bytes: number;
  /** Send a Content-Length (else chunked, the client only learns the size by reading). */
  announced: boolean;
  /** `--max-response-size`; the default when absent. */
  limit?: string;
}

export interface SizePoint extends SizeCase {
  usage: Usage;
  /** Bytes the service had written when the client hung up (or finished). */
  sent: number;
}

const KEY_ID = 'BENCH_KEY';
const SECRET = 'bench-secret-0123456789';

/** `{"data":[ {record}, ... ]}` of `bytes` bytes (±1 record), streamed with backpressure. */
function record(i: number): string {
  const n = String(i).padStart(9, '0');
  return `{"intgGuid":"PROD_${n}","name":"bench-hook-${n}","type":"Webhook","enabled":1,"createdOrUpdatedTime":"2026-01-01T00:00:00.000Z","data":{"webhookUrl":"https://hooks.example.com/${n}/abcdefghijklmnop"}}`;
}

async function service(current: { c?: SizeCase; sent: number }): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    };
    if (path.endsWith('/access/tokens')) return json(201, JSON.stringify({ token: 'bench-token-0123456789abcdef', expiresAt: new Date(Date.now() + 3600_000).toISOString() }));
    const c = current.c;
    if (!c || req.method !== 'GET' || path !== '/api/v2/AlertChannels') return json(200, '{"data":[]}');
    current.sent = 0;
    res.writeHead(200, { 'content-type': 'application/json', ...(c.announced ? { 'content-length': String(c.bytes) } : {}) });
    const head = Buffer.from('{"data":[');
    const tail = Buffer.from(']}');
    res.write(head);
    current.sent += head.length;
    let i = 0;
    const pump = (): void => {
      while (!res.destroyed) {
        // About 256 KiB of records per write.
        const parts: string[] = [];
        let size = 0;
        while (size < 256 * 1024 && current.sent + size < c.bytes - tail.length - 300) {
          const r = (i > 0 ? ',' : '') + record(i++);
          parts.push(r);
          size += r.length;
        }
        if (parts.length === 0) {
          const pad = Math.max(0, c.bytes - tail.length - current.sent);
          res.end(Buffer.concat([Buffer.from(' '.repeat(pad)), tail]));
          current.sent += pad + tail.length;
          return;
        }
        current.sent += size;
        if (!res.write(parts.join(''))) return void res.once('drain', pump);
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const SIZE_CASES: readonly SizeCase[] = [
  { what: '400 MB list, streamed (no Content-Length)', bytes: 400 * MB, announced: false },
  { what: '400 MB list, announced by Content-Length', bytes: 400 * MB, announced: true },
  { what: '50 MB list, streamed', bytes: 50 * MB, announced: false },
  { what: `list just under the limit (${DEFAULT_MAX_RESPONSE_BYTES / MB} MiB - 64 KiB), read and planned`, bytes: DEFAULT_MAX_RESPONSE_BYTES - 64 * 1024, announced: false },
];

/** `plan` of a one-channel repository against a service whose channel list is each case's size. */
export async function responseSize(cases: readonly SizeCase[] = SIZE_CASES, progress: (line: string) => void = () => undefined): Promise<SizePoint[]> {
  const current: { c?: SizeCase; sent: number } = { sent: 0 };
  const svc = await service(current);
  const dir = await mkdtemp(join(tmpdir(), 'postureops-size-'));
  try {
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
    await writeFile(join(dir, 'hook.yaml'), 'kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/x\n');
    const cli = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
    const points: SizePoint[] = [];
    for (const c of cases) {
      current.c = c;
      current.sent = 0;
      const usage = await measure([cli, 'plan', dir, ...(c.limit ? ['--max-response-size', c.limit] : [])], dir, {
        SVC_BASE_URL: svc.url,
        SVC_API_KEY_ID: KEY_ID,
        SVC_API_SECRET: SECRET,
        NO_COLOR: '1',
        POSTUREOPS_CACHE_DIR: dir,
      });
      points.push({ ...c, usage, sent: current.sent });
      progress(`  ${c.what}: exit ${usage.exitCode}, peak RSS ${usage.maxRssMb.toFixed(0)} MB, ${(usage.wallMs / 1000).toFixed(2)} s, the service sent ${(current.sent / MB).toFixed(1)} MB`);
    }
    return points;
  } finally {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function responseSizeTable(points: readonly SizePoint[]): string {
  const rows = points.map(
    (p) => `| ${p.what} | ${p.usage.exitCode === 0 ? 'planned (exit 0)' : `refused (exit ${p.usage.exitCode})`} | ${(p.sent / MB).toFixed(1)} MB | ${p.usage.maxRssMb.toFixed(0)} MB | ${(p.usage.wallMs / 1000).toFixed(2)} s |`,
  );
  return ['| the service sends | plan | sent before the client hung up | peak RSS | wall |', '|---|---|---|---|---|', ...rows].join('\n') + '\n';
}
