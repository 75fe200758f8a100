// Generated activity and evaluation records: a deterministic function of (seed, dataset, account,
// index), never stored. Record i of every dataset happens at i × interval (epoch ms), interval =
// round(one day / rows per day), so the records in a time window are an index range found by
// arithmetic: a search generates only what it returns (or, with filters, what it scans), and a
// start costs nothing. The same seed gives the same records at the same times on every run.

import { mulberry32 } from './faults.js';
import { COMPLIANCE_DATASETS, type ComplianceDataset } from './service-facts.js';

export const ACTIVITY_DATASETS = ['ChangedFiles', 'DNSs', 'UserLogins', 'ComplianceEvaluations', 'CloudActivities'] as const;
export type ActivityDataset = (typeof ACTIVITY_DATASETS)[number];

const DAY_MS = 86_400_000;

/** A 32-bit mix (murmur3's finalizer). */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashText(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix(h);
}

/** Numbers in [0, 1) drawn from one record's own state. */
const random = mulberry32;

type Rng = () => number;
const pick = <T>(r: Rng, list: readonly T[]): T => list[Math.floor(r() * list.length)];
const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
function hex(r: Rng, n: number): string {
  let out = '';
  while (out.length < n) out += Math.floor(r() * 4294967296).toString(16).padStart(8, '0');
  return out.slice(0, n);
}
const ip = (r: Rng, prefix: string): string => `${prefix}.${int(r, 0, 255)}.${int(r, 1, 254)}`;
const iso = (ms: number): string => new Date(ms).toISOString();

const PATHS = ['/etc/passwd', '/etc/shadow', '/etc/ssh/sshd_config', '/usr/bin/curl', '/usr/local/bin/app', '/var/www/html/index.php', '/root/.bashrc', '/tmp/.cache/run.sh'];
const FQDNS = ['api.github.com', 'registry.npmjs.org', 's3.amazonaws.com', 'updates.example.org', 'db.internal.example.com', 'pool.ntp.org'];
const USERS = ['root', 'ubuntu', 'ec2-user', 'deploy', 'alice', 'bob'];
const EVENT_TYPES = ['ConsoleLogin', 'CreateUser', 'CreateAccessKey', 'PutBucketPolicy', 'AuthorizeSecurityGroupIngress', 'DeleteTrail', 'AssumeRole'];
const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1'];
const RULES = [
  { rule_id: 'SVC-CT-1', rule_title: 'Root account used', rule_description: 'The root account was used for an API call', rule_severity: 1 },
  { rule_id: 'SVC-CT-7', rule_title: 'Access key created', rule_description: 'An IAM access key was created', rule_severity: 3 },
  { rule_id: 'SVC-CT-12', rule_title: 'Security group opened', rule_description: 'Ingress was allowed from 0.0.0.0/0', rule_severity: 2 },
];
const SECTIONS = ['Identity and Access Management', 'Logging', 'Monitoring', 'Networking', 'Storage'];
const SEVERITIES = ['Critical', 'High', 'Medium', 'Low', 'Info'];
const STATUSES = ['NonCompliant', 'NonCompliant', 'Compliant'];
const PROVIDER: Record<ComplianceDataset, { tag: string; evalType: string; resource: (r: Rng, account: string) => string }> = {
  AwsCompliance: { tag: 'aws', evalType: 'AwsCis14', resource: (r, a) => `arn:aws:s3:::${a}-bucket-${int(r, 1, 40)}` },
  AzureCompliance: { tag: 'azure', evalType: 'AzureCis131', resource: (r, a) => `/subscriptions/${a}/resourceGroups/rg-${int(r, 1, 9)}/storageAccounts/sa${int(r, 1, 40)}` },
  GcpCompliance: { tag: 'gcp', evalType: 'GcpCis12', resource: (r, a) => `//storage.googleapis.com/projects/${a}/buckets/b-${int(r, 1, 40)}` },
};

export class ActivityData {
  /** Milliseconds between two records of a dataset. */
  readonly interval: number;

  constructor(
    private readonly seed: number,
    rowsPerDay: number,
  ) {
    this.interval = Math.max(1, Math.round(DAY_MS / rowsPerDay));
  }

  /** The records with from <= time < to, as an index range. */
  range(from: number, to: number): { first: number; count: number } {
    const first = Math.ceil(from / this.interval);
    const end = Math.ceil(to / this.interval);
    return { first, count: Math.max(0, end - first) };
  }

  timeOf(index: number): number {
    return index * this.interval;
  }

  private rng(dataset: ActivityDataset, account: string, variant: string, index: number): Rng {
    const lo = index >>> 0;
    const hi = Math.floor(index / 4294967296) >>> 0;
    const h = mix(mix(mix(this.seed ^ hashText(`${dataset}/${account.toLowerCase()}/${variant}`)) ^ lo) ^ mix(hi + 0x9e3779b9));
    return random(h);
  }

  /** Record `index` of a dataset of an account; `variant` is the compliance dataset (else ''). */
  record(dataset: ActivityDataset, account: string, variant: string, index: number): Record<string, unknown> {
    const r = this.rng(dataset, account, variant, index);
    const t = this.timeOf(index);
    const mid = 1000 + int(r, 0, 24);
    switch (dataset) {
      case 'ChangedFiles':
        return {
          startTime: iso(t),
          endTime: iso(t + this.interval),
          mid,
          filePath: pick(r, PATHS),
          filedataHash: hex(r, 64),
          mtime: iso(t - int(r, 0, 3_600_000)),
          size: int(r, 0, 2_000_000),
          threatInfo: r() < 0.05 ? 'KNOWN_MALICIOUS_HASH' : '',
        };
      case 'DNSs':
        return { createdTime: iso(t), mid, fqdn: pick(r, FQDNS), hostIpAddr: ip(r, '10.0'), ttl: pick(r, [60, 300, 3600]), dnsServerIp: pick(r, ['10.0.0.2', '1.1.1.1', '8.8.8.8']) };
      case 'UserLogins': {
        const username = pick(r, USERS);
        return {
          createdTime: iso(t),
          activityTime: iso(t - int(r, 0, 60_000)),
          mid,
          activityType: pick(r, ['LOGIN', 'LOGOFF']),
          username,
          uid: username === 'root' ? 0 : 1000 + USERS.indexOf(username),
          sourceIpAddr: ip(r, '203.0'),
        };
      }
      case 'ComplianceEvaluations': {
        const p = PROVIDER[variant as ComplianceDataset] ?? PROVIDER[COMPLIANCE_DATASETS[0]];
        const section = pick(r, SECTIONS);
        const rule = int(r, 1, 30);
        const accountId = String(100000000000 + (hashText(`${account.toLowerCase()}/${variant}`) % 900000000000));
        const record: Record<string, unknown> = {
          account: { AccountId: accountId, Account_Alias: `${account}-${p.tag}` },
          evalType: p.evalType,
          id: `svc-${p.tag}-${rule}`,
          reason: `${section} check ${rule} failed`,
          recommendation: `Apply control ${rule} of section ${section}`,
        };
        if (r() < 0.7) record.region = pick(r, REGIONS);
        return {
          ...record,
          reportTime: iso(t),
          resource: p.resource(r, account),
          section,
          severity: pick(r, SEVERITIES),
          status: pick(r, STATUSES),
        };
      }
      case 'CloudActivities': {
        const rule = pick(r, RULES);
        const user = pick(r, USERS);
        return {
          startTime: iso(t),
          endTime: iso(t + this.interval),
          eventType: pick(r, EVENT_TYPES),
          eventId: mix(index ^ this.seed) % 2_000_000_000,
          eventModel: 'CloudTrailCep',
          eventActor: 'Aws',
          eventMap: {
            API: [{ KEY: { service: pick(r, ['iam.amazonaws.com', 's3.amazonaws.com', 'ec2.amazonaws.com', 'signin.amazonaws.com']) } }],
            CT_User: [{ KEY: { username: user, accountId: account }, PROPS: { mfa: r() < 0.5 } }],
            Region: [{ KEY: { region: pick(r, REGIONS) } }],
            Resource: [{ KEY: { name: 'bucket', value: `${account}-bucket-${int(r, 1, 40)}` } }],
            RulesTriggered: [{ KEY: { rule_guid: rule.rule_id }, PROPS: rule }],
            SourceIpAddress: [{ KEY: { ip_address: ip(r, '198.51') }, PROPS: { country: pick(r, ['US', 'DE', 'JP']) } }],
          },
        };
      }
    }
  }
}
