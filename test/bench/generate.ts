// A realistic configuration repository of any size, written to disk: N resources spread over A
// accounts, in the shapes real repositories use. Used by the bench (`npm run bench`) and meant to be
// reused by anything that needs a large valid repository (a scale simulation, a profile).
//
// What a generated repository holds (every document valid; `validate` reports nothing):
//   postureops.yaml          A accounts `acc-000` … (the first is defaults.account), prune off
//   .env                     the variables the documents reference (fake values)
//   shared/*.yaml            documents with `account: "*"`: each stamps one resource into every account
//   pairs/*.yaml             documents with `account: [acc-2k, acc-2k+1]`: one resource in each of two accounts
//   accounts/<acc>/*.yaml    documents of one account (`account: acc-…`; those of the first account
//                            name none and go to defaults.account)
// Files hold up to FILE_DOCUMENTS documents separated by `---`, with a comment line on top.
//
// The kinds repeat in groups of ten resources: 4 AlertChannels (Webhook and SlackChannel, secrets as
// `${env:...}`), 4 AlertRules (each names the one or two channels before it, declared for the same
// accounts), 1 CloudAccount (AwsCfg), 1 ContainerRegistry (AWS_ECR). Account ids are unique
// across the repository. Output is deterministic: the same shape always writes the same bytes.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface RepositoryShape {
  /** Accounts declared in postureops.yaml (≥ 1). */
  accounts: number;
  /** Resources in total, after documents are stamped into their accounts (≥ 0). */
  resources: number;
  /**
   * Share (0…1) of each account's resources that come from `account: "*"` documents (default 0.2).
   * Pairs of accounts then share a tenth of what is left through `account: [a, b]` documents.
   */
  shared?: number;
}

export interface GeneratedRepository {
  /** The account names, in the order postureops.yaml declares them. */
  accounts: string[];
  /** Resources per account name (they differ by at most one). */
  perAccount: Record<string, number>;
  /** Resources in total: the sum of perAccount, equal to the shape's `resources`. */
  resources: number;
  /** Documents written (a shared document counts once). */
  documents: number;
  /** YAML files written, the root file included. */
  files: number;
  /** The variables the documents reference; also written to `.env` in the directory. */
  env: Record<string, string>;
}

/** Documents per file, at most. */
export const FILE_DOCUMENTS = 25;

export const GENERATED_ENV: Readonly<Record<string, string>> = {
  HOOK_TOKEN: 'bench-hook-token',
  SLACK_URL: 'https://hooks.slack.com/services/T000/B000/bench',
};

export function accountName(i: number): string {
  return `acc-${String(i).padStart(3, '0')}`;
}

interface Scope {
  /** Prefix of names and file names. */
  prefix: string;
  /** The `account:` line, or '' to name none (defaults.account). */
  accountLine: string;
  /** Resources each of its documents yields per account it is stamped into. */
  count: number;
  dir: string;
}

/** Writes the repository into `dir` (created if needed; existing files of the same names are replaced). */
export async function writeRepository(dir: string, shape: RepositoryShape): Promise<GeneratedRepository> {
  const { accounts: a, resources: n } = shape;
  if (!Number.isInteger(a) || a < 1) throw new Error(`accounts must be a positive integer, got ${a}`);
  if (!Number.isInteger(n) || n < 0) throw new Error(`resources must be a non-negative integer, got ${n}`);
  const share = shape.shared ?? 0.2;
  if (!(share >= 0 && share <= 1)) throw new Error(`shared must be between 0 and 1, got ${share}`);

  const names = Array.from({ length: a }, (_, i) => accountName(i));
  // Each account's budget: n / a, the remainder to the first accounts.
  const budget = names.map((_, i) => Math.floor(n / a) + (i < n % a ? 1 : 0));
  const scopes: Scope[] = [];
  const sharedCount = Math.floor(share * Math.min(...budget));
  if (sharedCount > 0) scopes.push({ prefix: 'shared', accountLine: 'account: "*"', count: sharedCount, dir: 'shared' });
  const left = budget.map((b) => b - sharedCount);
  for (let i = 0; i + 1 < a; i += 2) {
    const count = Math.floor(0.1 * Math.min(left[i], left[i + 1]));
    if (count === 0) continue;
    scopes.push({ prefix: `pair-${names[i]}`, accountLine: `account: [${names[i]}, ${names[i + 1]}]`, count, dir: 'pairs' });
    left[i] -= count;
    left[i + 1] -= count;
  }
  names.forEach((name, i) => {
    if (left[i] > 0) scopes.push({ prefix: name, accountLine: i === 0 ? '' : `account: ${name}`, count: left[i], dir: join('accounts', name) });
  });

  let documents = 0;
  let files = 1;
  let cloudId = 100_000_000_000;
  const written: Promise<void>[] = [];
  const dirs = new Set<string>();
  for (const scope of scopes) {
    const docs: string[] = [];
    const channels: string[] = [];
    const head = scope.accountLine === '' ? '' : `${scope.accountLine}\n`;
    for (let i = 0; i < scope.count; i++) {
      const slot = i % 10;
      const n4 = String(i).padStart(4, '0');
      if (slot < 4 || channels.length === 0) {
        const name = `${scope.prefix}-hook-${n4}`;
        channels.push(name);
        docs.push(
          slot % 2 === 0
            ? `kind: AlertChannel\nname: ${name}\n${head}spec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${n4}/\${env:HOOK_TOKEN}\n`
            : `kind: AlertChannel\nname: ${name}\n${head}spec:\n  type: SlackChannel\n  enabled: true\n  data:\n    slackUrl: \${env:SLACK_URL}\n`,
        );
      } else if (slot < 8) {
        const targets = channels.slice(slot % 2 === 0 ? -2 : -1);
        docs.push(
          `kind: AlertRule\nname: ${scope.prefix}-rule-${n4}\n${head}spec:\n  description: Findings of group ${Math.floor(i / 10)} to its channels\n` +
            `  channels: [${targets.join(', ')}]\n  severity: [critical, high]\n  eventCategory: [Cloud, Compliance]\n`,
        );
      } else if (slot === 8) {
        const id = String(cloudId++);
        docs.push(
          `kind: CloudAccount\nname: ${scope.prefix}-aws-${n4}\n${head}spec:\n  type: AwsCfg\n  data:\n    awsAccountId: "${id}"\n` +
            `    crossAccountCredentials:\n      roleArn: arn:aws:iam::${id}:role/posture-audit\n      externalId: ext-${n4}\n`,
        );
      } else {
        const id = String(cloudId++);
        docs.push(
          `kind: ContainerRegistry\nname: ${scope.prefix}-ecr-${n4}\n${head}spec:\n  data:\n    registryType: AWS_ECR\n    awsAuthType: AWS_IAM\n` +
            `    registryDomain: ${id}.dkr.ecr.us-east-1.amazonaws.com\n    crossAccountCredentials:\n      roleArn: arn:aws:iam::${id}:role/ecr\n      externalId: ecr-${n4}\n`,
        );
      }
    }
    documents += docs.length;
    const folder = join(dir, scope.dir);
    if (!dirs.has(folder)) {
      dirs.add(folder);
      await mkdir(folder, { recursive: true });
    }
    for (let f = 0; f * FILE_DOCUMENTS < docs.length; f++) {
      const text = `# ${scope.prefix}: part ${f + 1}\n` + docs.slice(f * FILE_DOCUMENTS, (f + 1) * FILE_DOCUMENTS).join('---\n');
      files++;
      written.push(writeFile(join(folder, `${scope.prefix}-${String(f).padStart(3, '0')}.yaml`), text));
    }
  }
  await mkdir(dir, { recursive: true });
  const root = `# Generated by test/bench/generate.ts: ${n} resources in ${a} accounts\naccounts:\n${names.map((x) => `  - name: ${x}\n`).join('')}defaults:\n  account: ${names[0]}\nprune: false\nvariables: [${Object.keys(GENERATED_ENV).join(', ')}]\n`;
  written.push(writeFile(join(dir, 'postureops.yaml'), root));
  written.push(writeFile(join(dir, '.env'), Object.entries(GENERATED_ENV).map(([k, v]) => `${k}=${v}\n`).join('')));
  await Promise.all(written);

  const perAccount: Record<string, number> = {};
  names.forEach((name, i) => (perAccount[name] = budget[i]));
  return { accounts: names, perAccount, resources: n, documents, files, env: { ...GENERATED_ENV } };
}
