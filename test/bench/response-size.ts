// `npm run bench -- --response-size`: peak RSS of `plan` against a service that fills lists up to,
// or past, each limit: the response size (one list of 400 MB, 50 MB, just under 32 MiB), the
// records of a run (tiny records), the total size of a run (64 KiB records, 12 lists of 4 accounts
// read at once). Lists are streamed without a Content-Length unless a case announces one. The CLI
// runs `plan` in a child process (measure() in curve.ts: peak RSS, CPU, wall time, exit code and
// the limit its error names). Never asserted in tests. What it shows: whatever the service sends,
// a run stays under 300 MB.

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_RECORDS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_TOTAL_BYTES } from '../../src/api/options.js';
import { packageRoot } from '../../src/util/package-root.js';
import { measure, type Usage } from './curve.js';

const MB = 1024 * 1024;

export type RecordShape = 'small' | 'tiny' | 'large';

export interface SizeCase {
  what: string;
  /** Bytes the service sends (or announces) for each list. */
  bytes: number;
  /** Send a Content-Length (else chunked, the client only learns the size by reading). */
  announced: boolean;
  /** `--max-response-size`; the default when absent. */
  limit?: string;
  /** Other flags of `plan` (another limit). */
  flags?: string[];
  /** Records of ~200 bytes (default), ~45 bytes (`tiny`: the most records per byte) or ~64 KiB (`large`). */
  shape?: RecordShape;
  /** Stop after this many records (the body is then smaller than `bytes`). */
  records?: number;
  /** Accounts in the repository, all read in parallel (default 1). */
  accounts?: number;
  /** Collections answered with such a list in every account (default the alert channels only). */
  collections?: readonly string[];
}

export interface SizePoint extends SizeCase {
  usage: Usage;
  /** Bytes the service had written, all lists together, when the client hung up (or finished). */
  sent: number;
}

const KEY_ID = 'BENCH_KEY';
const SECRET = 'bench-secret-0123456789';
const TYPE_OF: Record<string, string> = { AlertChannels: 'Webhook', CloudAccounts: 'AwsCfg', ContainerRegistries: 'ContVulnCfg' };
const LARGE = 'x'.repeat(64 * 1024);

/** One record of a list; the same shape for every integration collection. */
function record(i: number, shape: RecordShape, type: string): string {
  const n = String(i).padStart(9, '0');
  if (shape === 'tiny') return `{"intgGuid":"T${n}","name":"t${n}","type":"${type}"}`;
  const url = shape === 'large' ? `https://hooks.example.com/${n}/${LARGE}` : `https://hooks.example.com/${n}/abcdefghijklmnop`;
  return `{"intgGuid":"PROD_${n}","name":"bench-hook-${n}","type":"${type}","enabled":1,"createdOrUpdatedTime":"2026-01-01T00:00:00.000Z","data":{"webhookUrl":"${url}"}}`;
}

/** Writes `{"data":[ {record}, ... ]}` of `c.bytes` bytes (±1 record, padded) or `c.records` records, with backpressure. */
function sendList(res: ServerResponse, c: SizeCase, type: string, current: { sent: number }): void {
  const shape = c.shape ?? 'small';
  const sample = record(0, shape, type).length + 1;
  // A body of `records` records is announced at its exact size: padded up to it.
  const bytes = c.records !== undefined ? c.records * sample + 16 : c.bytes;
  res.writeHead(200, { 'content-type': 'application/json', ...(c.announced ? { 'content-length': String(bytes) } : {}) });
  const head = Buffer.from('{"data":[');
  const tail = Buffer.from(']}');
  res.write(head);
  let written = head.length;
  current.sent += head.length;
  let i = 0;
  const pump = (): void => {
    while (!res.destroyed) {
      // About 256 KiB of records per write.
      const parts: string[] = [];
      let size = 0;
      while (size < 256 * 1024 && written + size < bytes - tail.length - sample && (c.records === undefined || i < c.records)) {
        const r = (i > 0 ? ',' : '') + record(i++, shape, type);
        parts.push(r);
        size += r.length;
      }
      if (parts.length === 0) {
        const pad = Math.max(0, bytes - tail.length - written);
        res.end(Buffer.concat([Buffer.from(' '.repeat(pad)), tail]));
        current.sent += pad + tail.length;
        return;
      }
      written += size;
      current.sent += size;
      if (!res.write(parts.join(''))) return void res.once('drain', pump);
    }
  };
  pump();
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
    // The list, or its search (the client may take either, by budget).
    const collection = /^\/api\/v2\/([A-Za-z]+)(\/search)?$/.exec(path);
    const lists = c?.collections ?? ['AlertChannels'];
    if (!c || !collection || !lists.includes(collection[1]) || (req.method === 'GET') === (collection[2] !== undefined)) return json(200, '{"data":[]}');
    sendList(res, c, TYPE_OF[collection[1]] ?? 'Webhook', current);
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

const UNDER = DEFAULT_MAX_RESPONSE_BYTES - 64 * 1024;
const INTEGRATIONS = ['AlertChannels', 'CloudAccounts', 'ContainerRegistries'];
const SMALL = `${record(0, 'small', 'Webhook').length}-byte`;
const TINY = `${record(0, 'tiny', 'Webhook').length}-byte`;
const RECORDS = DEFAULT_MAX_RECORDS.toLocaleString('en-US');
const PER_LIST = Math.floor(DEFAULT_MAX_RECORDS / 12);
const TOTAL = `${DEFAULT_MAX_TOTAL_BYTES / MB} MiB`;

/**
 * Each limit, passed and just not passed: by one list in one account, and by 3 lists in each of 4
 * accounts read in parallel (what a run holds together). Records of ~200 bytes are a real record's
 * size, tiny records the most a byte limit lets in, 64 KiB records the most memory per record.
 */
export const SIZE_CASES: readonly SizeCase[] = [
  { what: '400 MB list, streamed (no Content-Length)', bytes: 400 * MB, announced: false },
  { what: '400 MB list, announced by Content-Length', bytes: 400 * MB, announced: true },
  { what: '50 MB list, streamed', bytes: 50 * MB, announced: false },
  { what: `list just under the size limit (${DEFAULT_MAX_RESPONSE_BYTES / MB} MiB - 64 KiB), ${SMALL} records`, bytes: UNDER, announced: false },
  { what: `list just under the size limit, ${TINY} records`, bytes: UNDER, announced: false, shape: 'tiny' },
  { what: `list just under the size limit, 64 KiB records`, bytes: UNDER, announced: false, shape: 'large' },
  { what: `${RECORDS} ${SMALL} records in one list (the records limit)`, bytes: UNDER, announced: false, records: DEFAULT_MAX_RECORDS },
  { what: `${RECORDS} ${TINY} records in one list, announced`, bytes: UNDER, announced: true, shape: 'tiny', records: DEFAULT_MAX_RECORDS },
  { what: `4 accounts × 3 lists, each just under the size limit, 64 KiB records`, bytes: UNDER, announced: false, shape: 'large', accounts: 4, collections: INTEGRATIONS },
  { what: `4 accounts × 3 lists, each just under the size limit, ${TINY} records`, bytes: UNDER, announced: false, shape: 'tiny', accounts: 4, collections: INTEGRATIONS },
  { what: `4 accounts × 3 lists of ${PER_LIST.toLocaleString('en-US')} ${SMALL} records (just under the records limit together)`, bytes: UNDER, announced: false, records: PER_LIST, accounts: 4, collections: INTEGRATIONS },
  {
    what: `4 accounts × 3 lists of 64 KiB records, just under ${TOTAL} together (the total size limit)`,
    bytes: Math.floor(DEFAULT_MAX_TOTAL_BYTES / 12) - 64 * 1024,
    announced: false,
    shape: 'large',
    accounts: 4,
    collections: INTEGRATIONS,
  },
];

/** `plan` of a repository of one resource per kind and account against a service whose lists are each case's size, in each of its accounts. */
export async function responseSize(cases: readonly SizeCase[] = SIZE_CASES, progress: (line: string) => void = () => undefined): Promise<SizePoint[]> {
  const current: { c?: SizeCase; sent: number } = { sent: 0 };
  const svc = await service(current);
  const dir = await mkdtemp(join(tmpdir(), 'postureops-size-'));
  try {
    // One resource of each kind whose list the service fills, in every account: plan reads only the
    // kinds a repository declares.
    await writeFile(
      join(dir, 'resources.yaml'),
      [
        'kind: AlertChannel\nname: hook\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/x\n',
        'kind: CloudAccount\nname: aws\naccount: "*"\nspec:\n  type: AwsCfg\n  data:\n    awsAccountId: "100000000000"\n    crossAccountCredentials:\n      roleArn: arn:aws:iam::100000000000:role/posture\n      externalId: ext-1\n',
        'kind: ContainerRegistry\nname: ecr\naccount: "*"\nspec:\n  data:\n    registryType: AWS_ECR\n    awsAuthType: AWS_IAM\n    registryDomain: 100000000000.dkr.ecr.us-east-1.amazonaws.com\n    crossAccountCredentials:\n      roleArn: arn:aws:iam::100000000000:role/ecr\n      externalId: ecr-1\n',
      ].join('---\n'),
    );
    const cli = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
    const points: SizePoint[] = [];
    for (const c of cases) {
      const accounts = Array.from({ length: c.accounts ?? 1 }, (_, i) => `  - name: acct-${i}\n`).join('');
      await writeFile(join(dir, 'postureops.yaml'), `accounts:\n${accounts}defaults:\n  account: acct-0\n`);
      current.c = c;
      current.sent = 0;
      const usage = await measure([cli, 'plan', dir, ...(c.limit ? ['--max-response-size', c.limit] : []), ...(c.flags ?? [])], dir, {
        SVC_BASE_URL: svc.url,
        SVC_API_KEY_ID: KEY_ID,
        SVC_API_SECRET: SECRET,
        NO_COLOR: '1',
        POSTUREOPS_CACHE_DIR: dir,
      });
      points.push({ ...c, usage, sent: current.sent });
      progress(`  ${c.what}: exit ${usage.exitCode} ${outcome(usage)}, peak RSS ${usage.maxRssMb.toFixed(0)} MB, ${(usage.wallMs / 1000).toFixed(2)} s, the service sent ${(current.sent / MB).toFixed(1)} MB`);
    }
    return points;
  } finally {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** What ended the run, from its exit code and the limit its error names. */
function outcome(u: Usage): string {
  if (u.exitCode === 0) return 'planned (exit 0)';
  const limit = ['--max-records', '--max-total-size', '--max-response-size'].find((flag) => u.stderr?.includes(flag));
  return `refused (exit ${u.exitCode}${limit ? `, ${limit}` : ''})`;
}

export function responseSizeTable(points: readonly SizePoint[]): string {
  const rows = points.map((p) => `| ${p.what} | ${outcome(p.usage)} | ${(p.sent / MB).toFixed(1)} MB | ${p.usage.maxRssMb.toFixed(0)} MB | ${(p.usage.wallMs / 1000).toFixed(2)} s |`);
  return ['| the service sends | plan | sent before the client hung up | peak RSS | wall |', '|---|---|---|---|---|', ...rows].join('\n') + '\n';
}
