// A corpus of broken configurations: each case names the diagnostic code, a piece of its message
// and the exact place (file, line, column) it must point at.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { makeRepo, ROOT_TWO } from './helpers.js';

interface Case {
  name: string;
  /** Files of the repository; `postureops.yaml` defaults to two accounts (prod default, staging). */
  files: Record<string, string>;
  env?: Record<string, string>;
  code: string;
  message: string;
  severity?: 'error' | 'warning';
  file?: string;
  line?: number;
  column?: number;
  /** Text the message must not contain (secret values). */
  notInMessage?: string;
  /** The diagnostic must be the only one. */
  only?: boolean;
}

const slack = (extra = '', data = '    slackUrl: ${env:SLACK_URL}\n'): string =>
  `kind: AlertChannel\nname: ops-slack\n${extra}spec:\n  type: SlackChannel\n  data:\n${data}`;
const ENV = { SLACK_URL: 'https://hooks.slack.com/services/T000/B000/XXXX' };

const CASES: Case[] = [
  {
    name: 'root file missing',
    files: { 'a.yaml': slack() },
    code: 'root-missing',
    message: 'no postureops.yaml in',
  },
  {
    name: 'root: no accounts listed',
    files: { 'postureops.yaml': 'accounts: []\n' },
    code: 'invalid-value',
    message: '`accounts` must list at least one item',
    file: 'postureops.yaml',
    line: 1,
    column: 1,
  },
  {
    name: 'root: misspelt member',
    files: { 'postureops.yaml': 'acounts:\n  - name: prod\n' },
    code: 'unknown-field',
    message: 'unknown field `acounts`; did you mean `accounts`?',
    file: 'postureops.yaml',
    line: 1,
    column: 1,
  },
  {
    name: 'root: default account not declared',
    files: { 'postureops.yaml': 'accounts:\n  - name: prod\n  - name: staging\ndefaults:\n  account: production\n' },
    code: 'account-not-declared',
    message: 'defaults.account names `production`',
    file: 'postureops.yaml',
    line: 5,
    column: 12,
  },
  {
    name: 'root: account declared twice',
    files: { 'postureops.yaml': 'accounts:\n  - name: prod\n  - name: prod\n' },
    code: 'duplicate-account',
    message: 'account `prod` is declared twice',
    file: 'postureops.yaml',
    line: 3,
    column: 11,
  },
  {
    name: 'root: prune names an unknown kind',
    files: { 'postureops.yaml': 'accounts:\n  - name: prod\nprune:\n  AlertRules: true\n' },
    code: 'invalid-value',
    message: '`prune` cannot name `AlertRules`',
    file: 'postureops.yaml',
    line: 4,
    column: 3,
  },
  {
    name: 'root: several accounts and no default',
    files: { 'postureops.yaml': 'accounts:\n  - name: prod\n  - name: staging\n' },
    code: 'default-account-missing',
    message: 'defaults.account is required',
    file: 'postureops.yaml',
    line: 1,
    column: 1,
  },
  {
    name: 'unknown kind with a suggestion',
    files: { 'a.yaml': 'kind: AlertChanel\nname: x\nspec: {}\n' },
    code: 'unknown-kind',
    message: 'unknown kind `AlertChanel`; expected one of: AlertChannel, ',
    file: 'a.yaml',
    line: 1,
    column: 7,
  },
  {
    name: 'kind missing',
    files: { 'a.yaml': '# a channel\nname: x\nspec: {}\n' },
    code: 'missing-field',
    message: 'missing required field `kind`',
    file: 'a.yaml',
    line: 2,
    column: 1,
  },
  {
    name: 'document is a list',
    files: { 'a.yaml': '- kind: AlertChannel\n' },
    code: 'document-not-mapping',
    message: 'a document must be a mapping',
    file: 'a.yaml',
    line: 1,
    column: 1,
  },
  {
    name: 'misspelt top-level member',
    files: { 'a.yaml': 'kind: AlertChannel\nname: x\nspecs:\n  type: SlackChannel\n' },
    code: 'unknown-field',
    message: 'unknown field `specs`; did you mean `spec`?',
    file: 'a.yaml',
    line: 3,
    column: 1,
  },
  {
    // The service adds types without notice: an unknown one is carried, with a warning (issue 9).
    name: 'channel type not one of the 16',
    files: { 'a.yaml': slack().replace('type: SlackChannel', 'type: Slack') },
    env: ENV,
    code: 'unknown-type',
    severity: 'warning',
    message: '`spec.type`: AlertChannel type `Slack` is not one this version knows',
    file: 'a.yaml',
    line: 4,
    column: 9,
  },
  {
    name: 'misspelt data member',
    files: { 'a.yaml': slack('', '    slackurl: ${env:SLACK_URL}\n') },
    env: ENV,
    code: 'unknown-field',
    message: 'unknown field `slackurl` in `spec.data`; did you mean `slackUrl`?',
    file: 'a.yaml',
    line: 6,
    column: 5,
  },
  {
    name: 'required data member missing',
    files: { 'a.yaml': 'kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    url: x\n' },
    code: 'missing-field',
    message: 'missing required field `spec.data.webhookUrl`',
    file: 'a.yaml',
    line: 5,
    column: 3,
  },
  {
    // A URL format is our guess, not the service's rule: a warning (issue 19).
    // The seed's SlackChannel schema requires an https URL: the service refuses any other (issue 29).
    name: 'slack URL from the environment is not https',
    files: { 'a.yaml': slack() },
    env: { SLACK_URL: 'http://hooks.example.com/secret-token' },
    code: 'format',
    severity: 'error',
    message: '`spec.data.slackUrl`: expected an https:// URL',
    file: 'a.yaml',
    line: 6,
    column: 15,
    notInMessage: 'secret-token',
  },
  {
    name: 'Slack URL written literally: a warning by default',
    files: { 'a.yaml': slack('', '    slackUrl: https://hooks.slack.com/services/T1/B1/Zq8w3RkLiteral\n') },
    code: 'secret-literal',
    severity: 'warning',
    message: 'data.slackUrl carries a credential and is written in the file',
    file: 'a.yaml',
    line: 6,
    column: 15,
    only: true,
    notInMessage: 'Zq8w3Rk',
  },
  {
    name: 'Slack URL written literally under secrets.literals: error',
    files: {
      'postureops.yaml': 'accounts:\n  - name: prod\nsecrets:\n  literals: error\n',
      'a.yaml': slack('', '    slackUrl: https://hooks.slack.com/services/T1/B1/Zq8w3RkLiteral\n'),
    },
    code: 'secret-literal',
    message: 'data.slackUrl carries a credential and is written in the file',
    file: 'a.yaml',
    line: 6,
    column: 15,
    only: true,
    notInMessage: 'Zq8w3Rk',
  },
  {
    name: 'PagerDuty key written literally: an error whatever the policy',
    files: {
      'postureops.yaml': 'accounts:\n  - name: prod\nsecrets:\n  literals: allow\n',
      'p.yaml': 'kind: AlertChannel\nname: pd\nspec:\n  type: PagerDutyApi\n  data:\n    apiIntgKey: 0123456789abcdef\n',
    },
    code: 'secret-literal',
    message: 'data.apiIntgKey is a secret the service never returns (write-only)',
    file: 'p.yaml',
    line: 6,
    column: 17,
    only: true,
    notInMessage: '0123456789abcdef',
  },
  {
    name: 'a secret of an unknown type, named as one at any depth, written literally: an error whatever the policy',
    files: {
      'postureops.yaml': 'accounts:\n  - name: prod\nsecrets:\n  literals: allow\n',
      'c.yaml': 'kind: CloudAccount\nname: future\nspec:\n  type: FutureCloudCfg\n  data:\n    credentials:\n      clientId: c-1\n      client_secret: Lit3ralS3cret\n',
    },
    code: 'secret-literal',
    message: 'data.credentials.client_secret is a secret the service never returns (write-only)',
    file: 'c.yaml',
    line: 8,
    column: 22,
    notInMessage: 'Lit3ralS3cret',
  },
  {
    name: 'a masked value copied into a file: sending it would overwrite the secret',
    files: { 'a.yaml': slack('', '    slackUrl: "********"\n') },
    code: 'secret-literal',
    message: 'data.slackUrl holds a mask ("********"), as the service shows a hidden secret',
    file: 'a.yaml',
    line: 6,
    column: 15,
  },
  {
    name: 'secrets.literals with an unknown value',
    files: { 'postureops.yaml': 'accounts:\n  - name: prod\nsecrets:\n  literals: warning\n' },
    code: 'invalid-value',
    message: 'secrets.literals',
    file: 'postureops.yaml',
    line: 4,
    column: 13,
  },
  {
    name: 'environment variable not set',
    files: { 'a.yaml': slack() },
    code: 'env-missing',
    message: 'environment variable SLACK_URL is not set',
    file: 'a.yaml',
    line: 6,
    column: 15,
  },
  {
    name: 'malformed environment reference (and no secret-literal on top)',
    files: { 'a.yaml': slack('', '    slackUrl: ${env:1SLACK}\n') },
    code: 'env-malformed',
    only: true,
    message: 'malformed environment reference `${env:1SLACK}`',
    file: 'a.yaml',
    line: 6,
    column: 15,
  },
  {
    name: 'unterminated environment reference',
    files: { 'a.yaml': slack('', '    slackUrl: "${env:SLACK_URL"\n') },
    code: 'env-malformed',
    message: 'without its closing `}`',
    file: 'a.yaml',
    line: 6,
    column: 15,
  },
  {
    name: 'account not declared',
    files: { 'a.yaml': slack('account: [prod, qa]\n') },
    env: ENV,
    code: 'account-not-declared',
    message: 'account `qa` is not declared in postureops.yaml',
    file: 'a.yaml',
    line: 3,
    column: 17,
  },
  {
    name: '"*" inside an account list',
    files: { 'a.yaml': slack('account: [prod, "*"]\n') },
    env: ENV,
    code: 'invalid-value',
    message: '"*" stands alone',
    file: 'a.yaml',
    line: 3,
    column: 17,
  },
  {
    name: 'same channel declared in two files for one account',
    files: { 'a.yaml': slack(), 'b/c.yaml': '# again\n' + slack('account: "*"\n') },
    env: ENV,
    code: 'duplicate-resource',
    message: 'AlertChannel `ops-slack` is declared twice for account prod: at a.yaml:2:7 and at b/c.yaml:3:7',
    file: 'b/c.yaml',
    line: 3,
    column: 7,
  },
  {
    name: 'rule routes to a channel no file declares',
    files: { 'r.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [pager]\n  severity: [critical]\n' },
    code: 'reference-not-declared',
    severity: 'warning',
    message: 'AlertChannel `pager` is not declared for account prod; plan will also accept a live AlertChannel of that name',
    file: 'r.yaml',
    line: 4,
    column: 14,
  },
  {
    name: 'severity name unknown',
    files: { 'r.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [x]\n  severity: [critical, severe]\n' },
    code: 'unknown-value',
    message: '`spec.severity[1]`: severity `severe` is not one of: critical, high, medium, low, info',
    file: 'r.yaml',
    line: 5,
    column: 24,
  },
  {
    name: 'severity out of range',
    files: { 'r.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [x]\n  severity: [6]\n' },
    code: 'invalid-value',
    message: '`spec.severity[0]`: expected critical (1), high (2), medium (3), low (4) or info (5)',
    file: 'r.yaml',
    line: 5,
    column: 14,
  },
  {
    name: 'severity list empty',
    files: { 'r.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [x]\n  severity: []\n' },
    code: 'invalid-value',
    message: '`spec.severity` must list at least one item',
    file: 'r.yaml',
    line: 5,
    column: 3,
  },
  {
    name: 'event category listed twice',
    files: { 'r.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [x]\n  severity: [high]\n  eventCategory:\n    - Cloud\n    - Cloud\n' },
    code: 'duplicate-item',
    message: '`spec.eventCategory` lists the same item twice (items 1 and 2)',
    file: 'r.yaml',
    line: 8,
    column: 7,
  },
  {
    name: 'name empty',
    files: { 'a.yaml': slack().replace('name: ops-slack', 'name: ""') },
    env: ENV,
    code: 'invalid-value',
    message: '`name` must not be empty',
    file: 'a.yaml',
    line: 2,
    column: 7,
  },
  {
    name: 'name only spaces',
    files: { 'a.yaml': slack().replace('name: ops-slack', 'name: "   "') },
    env: ENV,
    code: 'invalid-value',
    message: '`name` must not be only spaces',
    file: 'a.yaml',
    line: 2,
    column: 7,
  },
  {
    name: 'template declared twice in a profile',
    files: {
      'p.yaml':
        'kind: AlertProfile\nname: CUSTOM\nspec:\n  extends: SVC_HE_FILES_DEFAULT_PROFILE\n  alerts:\n' +
        '    - {name: A, eventName: e, subject: s, description: d}\n' +
        '    - {name: A, eventName: e, subject: s, description: d}\n',
    },
    code: 'duplicate-template',
    message: 'alert template `A` is declared twice in this profile',
    file: 'p.yaml',
    line: 7,
    column: 14,
  },
  {
    name: 'placeholder not closed',
    files: {
      'p.yaml':
        'kind: AlertProfile\nname: CUSTOM\nspec:\n  extends: SVC_HE_FILES_DEFAULT_PROFILE\n  alerts:\n' +
        '    - name: A\n      eventName: e\n      subject: "{{PATH} changed"\n      description: d\n',
    },
    code: 'template-placeholder',
    message: 'spec.alerts[0].subject: `{{` without a closing `}}`',
    file: 'p.yaml',
    line: 8,
    column: 16,
  },
  {
    name: 'placeholder with bad characters',
    files: {
      'p.yaml':
        'kind: AlertProfile\nname: CUSTOM\nspec:\n  extends: SVC_HE_FILES_DEFAULT_PROFILE\n  alerts:\n' +
        '    - name: A\n      eventName: e\n      subject: s\n      description: "{{FILE-PATH}}"\n',
    },
    code: 'template-placeholder',
    message: 'placeholder `{{FILE-PATH}}` has characters other than letters, digits and _',
    file: 'p.yaml',
    line: 9,
    column: 20,
  },
  {
    name: 'profile id with the reserved prefix',
    files: { 'p.yaml': 'kind: AlertProfile\nname: SVC_MINE\nspec:\n  extends: SVC_HE_FILES_DEFAULT_PROFILE\n' },
    code: 'profile-reserved-id',
    message: 'uses the prefix SVC_, which is reserved',
    file: 'p.yaml',
    line: 2,
    column: 7,
  },
  {
    name: 'profile extends the root profile',
    files: { 'p.yaml': 'kind: AlertProfile\nname: MINE\nspec:\n  extends: SVC_BASE_PROFILE\n' },
    code: 'profile-extends-root',
    message: 'SVC_BASE_PROFILE is the root of the predefined profiles',
    file: 'p.yaml',
    line: 4,
    column: 12,
  },
  {
    name: 'profile extends a custom profile',
    files: { 'p.yaml': 'kind: AlertProfile\nname: MINE\nspec:\n  extends: OTHER_CUSTOM\n' },
    code: 'profile-extends-custom',
    message: 'spec.extends must name a predefined profile',
    file: 'p.yaml',
    line: 4,
    column: 12,
  },
  {
    name: 'profile without extends',
    files: { 'p.yaml': 'kind: AlertProfile\nname: MINE\nspec:\n  alerts: []\n' },
    code: 'missing-field',
    message: 'missing required field `spec.extends`',
    file: 'p.yaml',
    line: 3,
    column: 1,
  },
  {
    name: 'enabled given as a word',
    files: { 'a.yaml': slack('', '    slackUrl: ${env:SLACK_URL}\n').replace('  type: SlackChannel\n', '  type: SlackChannel\n  enabled: "yes"\n') },
    env: ENV,
    code: 'invalid-value',
    message: '`spec.enabled`: expected one of: true, false, 1, 0',
    file: 'a.yaml',
    line: 5,
    column: 12,
  },
  {
    name: 'port given as text',
    files: {
      's.yaml':
        'kind: AlertChannel\nname: splunk\nspec:\n  type: SplunkHec\n  data:\n    host: h\n    port: "8088"\n    channel: c\n' +
        '    hecToken: ${env:HEC}\n    eventData: {index: i, source: s}\n',
    },
    env: { HEC: 'token' },
    code: 'invalid-type',
    message: '`spec.data.port`: expected an integer, found a string',
    file: 's.yaml',
    line: 7,
    column: 11,
  },
  {
    name: 'registry type unknown',
    files: { 'r.yaml': 'kind: ContainerRegistry\nname: reg\nspec:\n  data:\n    registryType: ECR\n' },
    code: 'unknown-type',
    severity: 'warning',
    message: '`spec.data.registryType`: ContainerRegistry type `ECR` is not one this version knows',
    only: true,
    file: 'r.yaml',
    line: 5,
    column: 19,
  },
  {
    name: 'ECR with a role but no role given',
    files: { 'r.yaml': 'kind: ContainerRegistry\nname: reg\nspec:\n  data:\n    registryType: AWS_ECR\n    registryDomain: d\n    awsAuthType: AWS_IAM\n' },
    code: 'missing-field',
    message: 'missing required field `spec.data.crossAccountCredentials`',
    file: 'r.yaml',
    line: 4,
    column: 3,
  },
  {
    name: 'Docker Hub password written literally',
    files: {
      'r.yaml':
        'kind: ContainerRegistry\nname: hub\nspec:\n  data:\n    registryType: DOCKERHUB\n    credentials:\n      username: u\n      password: hunter2\n',
    },
    code: 'secret-literal',
    message: 'data.credentials.password is a secret',
    file: 'r.yaml',
    line: 8,
    column: 17,
    notInMessage: 'hunter2',
  },
  {
    name: 'Jira Cloud without its API token',
    files: {
      'j.yaml':
        'kind: AlertChannel\nname: jira\nspec:\n  type: Jira\n  data:\n    jiraType: JIRA_CLOUD\n    jiraUrl: https://x.atlassian.net\n' +
        '    projectId: SEC\n    issueType: Bug\n    username: bot\n',
    },
    code: 'missing-field',
    message: 'missing required field `spec.data.apiToken`',
    file: 'j.yaml',
    line: 5,
    column: 3,
  },
  {
    name: 'GCP private key written literally',
    files: {
      'g.yaml':
        'kind: CloudAccount\nname: gcp\nspec:\n  type: GcpCfg\n  data:\n    idType: PROJECT\n    id: p\n    credentials:\n' +
        '      clientEmail: a@b.c\n      clientId: "1"\n      privateKeyId: ${env:KID}\n      privateKey: "-----BEGIN PRIVATE KEY-----"\n',
    },
    env: { KID: 'k' },
    code: 'secret-literal',
    message: 'data.credentials.privateKey is a secret',
    file: 'g.yaml',
    line: 12,
    column: 19,
    notInMessage: 'BEGIN',
  },
  {
    name: 'Jira Server password written literally on a Jira Cloud channel',
    files: {
      'j.yaml':
        'kind: AlertChannel\nname: jira\nspec:\n  type: Jira\n  data:\n    jiraType: JIRA_CLOUD\n    jiraUrl: https://x.atlassian.net\n' +
        '    projectId: SEC\n    issueType: Bug\n    username: bot\n    apiToken: ${env:JIRA}\n    password: hunter2\n',
    },
    env: { JIRA: 't' },
    code: 'secret-literal',
    message: 'data.password is a secret',
    file: 'j.yaml',
    line: 12,
    column: 15,
    notInMessage: 'hunter2',
  },
  {
    name: 'type naming an Object.prototype member',
    files: { 'a.yaml': 'kind: AlertChannel\nname: odd\nspec:\n  type: constructor\n  data: {}\n' },
    code: 'unknown-type',
    severity: 'warning',
    message: '`spec.type`: AlertChannel type `constructor` is not one',
    only: true,
    file: 'a.yaml',
    line: 4,
    column: 9,
  },
  {
    name: 'severity named after an Object.prototype member, twice',
    files: { 'r.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [x]\n  severity: [toString, toString]\n' },
    code: 'unknown-value',
    message: '`spec.severity[0]`: severity `toString` is not one of',
    file: 'r.yaml',
    line: 5,
    column: 14,
  },
  {
    name: 'wrong apiVersion',
    files: { 'a.yaml': 'apiVersion: postureops/v2\n' + slack() },
    env: ENV,
    code: 'invalid-value',
    message: '`apiVersion`: expected `postureops/v1`',
    file: 'a.yaml',
    line: 1,
    column: 13,
  },
  {
    name: 'AlertTemplate as a document',
    files: { 'a.yaml': 'kind: AlertTemplate\nname: x\n' },
    code: 'unknown-kind',
    message: 'unknown kind `AlertTemplate`',
    file: 'a.yaml',
    line: 1,
    column: 7,
  },
  {
    name: 'YAML syntax error',
    files: { 'a.yaml': 'kind: AlertChannel\nname: [x, y\nspec: {}\n' },
    code: 'yaml-syntax',
    message: 'YAML syntax error',
    file: 'a.yaml',
    line: 3,
    column: 1,
  },
  {
    name: 'cloud account type misspelt',
    files: { 'c.yaml': 'kind: CloudAccount\nname: aws\nspec:\n  type: AWSCfg\n  data: {}\n' },
    code: 'unknown-type',
    severity: 'error',
    message: '`spec.type`: CloudAccount type `AWSCfg` is not one postureops knows; did you mean `AwsCfg`?',
    file: 'c.yaml',
    line: 4,
    column: 9,
  },
  {
    name: 'known type with a member a typo away from one it has (a member far from all is carried with a warning)',
    files: { 'c.yaml': 'kind: CloudAccount\nname: gov\nspec:\n  type: AwsUsGovCfg\n  data:\n    accessKeyCredentals: {accountId: "123456789012", accessKeyId: AKIA, secretAccessKey: "${env:GOV_KEY}"}\n' },
    env: { GOV_KEY: 'k' },
    code: 'unknown-field',
    message: 'unknown field `accessKeyCredentals` in `spec.data`; did you mean `accessKeyCredentials`?',
    file: 'c.yaml',
    line: 6,
    column: 5,
  },
  {
    name: 'null for a required member (null only removes optional ones)',
    files: { 'a.yaml': slack('', '    slackUrl: null\n') },
    code: 'invalid-type',
    message: '`spec.data.slackUrl`: expected a string, found nothing (null)',
    file: 'a.yaml',
    line: 6,
    column: 15,
  },
  {
    name: 'spec missing',
    files: { 'a.yaml': 'kind: AlertRule\nname: r\n' },
    code: 'missing-field',
    message: 'missing required field `spec`',
    file: 'a.yaml',
    line: 1,
    column: 1,
  },
  {
    name: 'account of the wrong type',
    files: { 'a.yaml': slack('account: 7\n') },
    env: ENV,
    code: 'invalid-type',
    message: '`account`: expected a string or a list, found a number',
    file: 'a.yaml',
    line: 3,
    column: 10,
  },
];

describe('bad inputs', () => {
  it('has a corpus of at least 30 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CASES)('$name → $code', async (c) => {
    const files = 'postureops.yaml' in c.files || c.code === 'root-missing' ? c.files : { 'postureops.yaml': ROOT_TWO, ...c.files };
    const dir = await makeRepo(files);
    const result = await loadConfig(dir, { env: c.env ?? {}, cwd: dir });
    const found = result.diagnostics.filter((d) => d.code === c.code && d.message.includes(c.message));
    if (found.length === 0) {
      throw new Error(`expected ${c.code} "${c.message}", got:\n${result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`).join('\n')}`);
    }
    const d = found[0];
    expect(d.severity).toBe(c.severity ?? 'error');
    expect({ file: d.file, line: d.line, column: d.column }).toEqual({ file: c.file, line: c.line, column: c.column });
    if (c.only) expect(result.diagnostics.map((x) => x.code)).toEqual([c.code]);
    if (c.notInMessage) {
      for (const x of result.diagnostics) expect(`${x.message} ${x.hint ?? ''}`).not.toContain(c.notInMessage);
    }
  });
});
