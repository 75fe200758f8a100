import { describe, expect, it } from 'vitest';
import { declarationProblem } from '../../src/model/env.js';
import {
  assignVariables,
  baseVariable,
  type ExportedSecret,
  type SecretSlot,
  secretsNote,
  upperSnake,
} from '../../src/ops/export/export-secrets.js';

// In-process tests of export's secret handling (placeholders, variable names, SECRETS.md): the e2e
// export tests spawn dist/ and cannot notice a broken src/ops/export/export-secrets.ts.

const slot = (account: string, kind: string, name: string, field: string, writeOnly = false): SecretSlot => ({ account, kind, name, field, writeOnly });
const names = (secrets: readonly ExportedSecret[]): string[] => secrets.map((s) => `${s.variable} ${s.account}/${s.kind}/${s.name}${s.field}`);

/** The fixed opening of every SECRETS.md, as the user reads it. */
const INTRO = [
  '# Secrets of this export',
  '',
  'postureops wrote no secret value into this folder: every secret of the service is referenced as',
  '`${env:VARIABLE}` and must be provided in the environment, or in a `.env` file beside `postureops.yaml`',
  '(or named with `--dotenv FILE`), before `postureops plan` or `apply` runs here. `postureops export',
  '--dotenv-out FILE` writes such a file (mode 0600) with the current values of the compared secrets.',
  '',
];
const LEGEND = [
  '- **compared**: the service returns the value, so plan compares it. Set the variable to the value the',
  '  service has now (for example the Slack URL), or the first plan shows an update.',
  '- **write-only**: the service never returns the value, so plan does not compare it. Any value lets plan run',
  '  (`export --dotenv-out` writes a placeholder that apply refuses to send);',
  '  the real one is sent when the resource is created or replaced, or rotated with `--rotate`. In a type',
  '  postureops does not know, every member named as a secret (password, token, apiKey, clientSecret...) and',
  '  every member the service shows masked is write-only, even where the service returns it in clear.',
  '',
];
const LEFT_OUT = [
  '## Left out of this export',
  '',
  'These live resources are not in any file: they cannot be managed by name as they are. Rename them in the',
  'service (or delete the extra copies), then export again. Until then `postureops.yaml` keeps prune off, so',
  'plan leaves them alone.',
  '',
];
const TABLE_HEAD = ['| Variable | Kind | Resource | Field | Secret |', '|---|---|---|---|---|'];

describe('variable names of exported secrets', () => {
  it('splits camelCase and acronyms into upper snake case and folds every run of other characters into one underscore', () => {
    expect(upperSnake('opsSlack-2')).toBe('OPS_SLACK_2');
    expect(upperSnake('HTTPServer')).toBe('HTTP_SERVER'); // an acronym followed by a word
    expect(upperSnake('a--b  c')).toBe('A_B_C');
    expect(upperSnake('')).toBe('');
  });

  it('names a secret SECRET_<ACCOUNT>_<NAME>_<FIELD> with the last member of the pointer, no doubled or trailing underscore', () => {
    expect(baseVariable('prod', 'ops-slack', '/data/slackUrl')).toBe('SECRET_PROD_OPS_SLACK_SLACK_URL');
    expect(baseVariable('prod', '-ops_', '/data/url-')).toBe('SECRET_PROD_OPS_URL');
    expect(baseVariable('prod', 'x', '/data/a~1b')).toBe('SECRET_PROD_X_A_B');
  });

  it('calls a secret at the root of the spec (empty pointer) SECRET', () => {
    expect(baseVariable('prod', 'x', '')).toBe('SECRET_PROD_X_SECRET');
  });

  it('hands out only variables a configuration may declare (never postureops\' own SVC_*), whatever the account is called', () => {
    const out = assignVariables([slot('svc', 'K', 'api', '/secret'), slot('github', 'K', 'token', '/-')]);
    expect(names(out)).toEqual(['SECRET_GITHUB_TOKEN github/K/token/-', 'SECRET_SVC_API_SECRET svc/K/api/secret']);
    for (const s of out) expect(declarationProblem(s.variable)).toBeUndefined();
  });

  it('returns one secret per slot, keeping every member of the slot', () => {
    const out = assignVariables([slot('prod', 'NotificationChannel', 'ops', '/data/slackUrl', true)]);
    expect(out).toEqual([{ variable: 'SECRET_PROD_OPS_SLACK_URL', account: 'prod', kind: 'NotificationChannel', name: 'ops', field: '/data/slackUrl', writeOnly: true }]);
  });

  // On a collision the names `_2`, `_3`... go in the order (base, account, kind, name, field), never
  // in the order the service listed the resources: the same live state always gets the same names.
  it('orders by base name first, whatever the account order', () => {
    // 'B' < 'a' in code units, but SECRET_A_... < SECRET_B_...
    const out = assignVariables([slot('B', 'K', 'x', '/u'), slot('a', 'K', 'x', '/u')]);
    expect(names(out)).toEqual(['SECRET_A_X_U a/K/x/u', 'SECRET_B_X_U B/K/x/u']);
  });

  it('on a collision, numbers by account before kind', () => {
    const out = assignVariables([slot('prod_eu', 'A', 'x', '/u'), slot('prod-eu', 'B', 'x', '/u')]);
    expect(names(out)).toEqual(['SECRET_PROD_EU_X_U prod-eu/B/x/u', 'SECRET_PROD_EU_X_U_2 prod_eu/A/x/u']);
  });

  it('on a collision in one account, numbers by kind before name', () => {
    const out = assignVariables([slot('p', 'B', 'ops-x', '/u'), slot('p', 'A', 'ops_x', '/u')]);
    expect(names(out)).toEqual(['SECRET_P_OPS_X_U p/A/ops_x/u', 'SECRET_P_OPS_X_U_2 p/B/ops-x/u']);
  });

  it('on a collision in one kind, numbers by name before field', () => {
    const out = assignVariables([slot('p', 'K', 'ops_x', '/urlA'), slot('p', 'K', 'ops-x', '/url_a')]);
    expect(names(out)).toEqual(['SECRET_P_OPS_X_URL_A p/K/ops-x/url_a', 'SECRET_P_OPS_X_URL_A_2 p/K/ops_x/urlA']);
  });

  it('on a collision in one resource, numbers by field, whatever the input order', () => {
    const out = assignVariables([slot('p', 'K', 'x', '/url_a'), slot('p', 'K', 'x', '/urlA'), slot('p', 'K', 'x', '/url-a')]);
    expect(names(out)).toEqual(['SECRET_P_X_URL_A p/K/x/url-a', 'SECRET_P_X_URL_A_2 p/K/x/urlA', 'SECRET_P_X_URL_A_3 p/K/x/url_a']);
  });
});

describe('SECRETS.md', () => {
  const secret = (variable: string, account: string, kind: string, name: string, field: string, writeOnly: boolean): ExportedSecret => ({
    variable,
    account,
    kind,
    name,
    field,
    writeOnly,
  });

  it('says no variable is needed when nothing has a secret, and has no table or left-out section', () => {
    expect(secretsNote(['prod'], [], [])).toBe(
      [...INTRO, 'None of the exported resources has a secret: no variables are needed.', ''].join('\n'),
    );
  });

  it('lists each account in the given order with its own secrets sorted by kind, name and field, and skips accounts without one', () => {
    const secrets = [
      secret('V6', 'prod', 'B', 'a', '/z', false),
      secret('V5', 'prod', 'A', 'b', '/b', true),
      secret('V4', 'prod', 'A', 'b', '/a', false),
      secret('V3', 'prod', 'A', 'a', '/z', false),
      secret('V1', 'dev', 'A', 'a', '/a', true),
    ];
    expect(secretsNote(['prod', 'empty', 'dev'], secrets, [])).toBe(
      [
        ...INTRO,
        ...LEGEND,
        '## Account prod',
        '',
        ...TABLE_HEAD,
        '| `V3` | A | a | `/z` | compared |',
        '| `V4` | A | b | `/a` | compared |',
        '| `V5` | A | b | `/b` | write-only |',
        '| `V6` | B | a | `/z` | compared |',
        '',
        '## Account dev',
        '',
        ...TABLE_HEAD,
        '| `V1` | A | a | `/a` | write-only |',
        '',
      ].join('\n'),
    );
  });

  it('escapes outside text (account, resource name, field, reason) so it cannot break the table or the list', () => {
    const hostile = 'a\\b|c`d\r\ne\nf';
    const escaped = 'a\\\\b\\|c\\`d e f';
    const note = secretsNote([hostile], [secret('SECRET_X', hostile, 'K', hostile, `/${hostile}`, false)], [
      { account: hostile, kind: 'K', name: hostile, reason: hostile },
    ]);
    expect(note).toBe(
      [
        ...INTRO,
        ...LEGEND,
        `## Account ${escaped}`,
        '',
        ...TABLE_HEAD,
        `| \`SECRET_X\` | K | ${escaped} | \`/${escaped}\` | compared |`,
        '',
        ...LEFT_OUT,
        `- account ${escaped}, K "${escaped}": ${escaped}`,
        '',
      ].join('\n'),
    );
  });

  it('lists the resources left out, in the given order, with the reason each cannot be managed', () => {
    const note = secretsNote(['prod'], [], [
      { account: 'prod', kind: 'AlertRule', name: 'dup', reason: '2 live resources have this name' },
      { account: 'dev', kind: 'NotificationChannel', name: 'bad', reason: 'the name is not valid' },
    ]);
    expect(note).toBe(
      [
        ...INTRO,
        'None of the exported resources has a secret: no variables are needed.',
        '',
        ...LEFT_OUT,
        '- account prod, AlertRule "dup": 2 live resources have this name',
        '- account dev, NotificationChannel "bad": the name is not valid',
        '',
      ].join('\n'),
    );
  });

  it('names the variable of every secret and never contains a value (the note only gets names)', () => {
    // ExportedSecret has no value member at all: what the note can print is names and pointers.
    const note = secretsNote(['prod'], [secret('SECRET_PROD_OPS_SLACK_URL', 'prod', 'NotificationChannel', 'ops', '/data/slackUrl', false)], []);
    expect(note).toContain('| `SECRET_PROD_OPS_SLACK_URL` | NotificationChannel | ops | `/data/slackUrl` | compared |');
    expect(note).not.toContain('hooks.slack.com');
  });
});
