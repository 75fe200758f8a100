// `export --dotenv-out`: values written so that Node's parser reads them back unchanged, write-only
// secrets as a placeholder that plan accepts and apply refuses to send.

import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/ops/apply/apply.js';
import { envFileText, quoteEnvValue } from '../../src/ops/export/export-env.js';
import { WRITE_ONLY_PLACEHOLDER } from '../../src/model/env-markers.js';
import type { JsonObject } from '../../src/model/json.js';
import { change, FakeService, fakeKind, planOf } from './apply-fakes.js';

const TRICKY = [
  'https://hooks.slack.com/services/T0/B0/abc',
  'https://x.example/?a=1&b=2#frag',
  'has # hash and spaces  ',
  "it's quoted",
  'both \' and ` quotes',
  'line one\nline two',
  '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
  '$HOME ${env:X} \\ backslash',
  '',
];

describe('export env file', () => {
  it('every value comes back from util.parseEnv as it was', () => {
    const { text, unwritable } = envFileText(TRICKY.map((value, i) => ({ variable: `V${i}`, value })));
    expect(unwritable).toEqual([]);
    const parsed = parseEnv(text);
    TRICKY.forEach((value, i) => expect(parsed[`V${i}`], JSON.stringify(value)).toBe(value));
  });

  it('a value no quoting can carry is left out and named', () => {
    const impossible = 'a\nb \' " ` \\n';
    expect(quoteEnvValue(impossible)).toBeUndefined();
    const { text, unwritable } = envFileText([{ variable: 'BAD', value: impossible }]);
    expect(unwritable).toEqual(['BAD']);
    expect(parseEnv(text).BAD).toBe('');
  });

  it('a write-only secret gets the placeholder, which apply refuses to send', async () => {
    const { text } = envFileText([{ variable: 'PD_KEY' }]);
    expect(parseEnv(text).PD_KEY).toBe(WRITE_ONLY_PLACEHOLDER);
    const svc = new FakeService();
    const plan = planOf([change({ action: 'create', kind: 'Pager', name: 'pd', after: { key: { $env: '${env:PD_KEY}' } } as unknown as JsonObject })]);
    const report = await apply(plan, svc, { env: parseEnv(text), kinds: [fakeKind('Pager', { writeOnly: ['/key'] })] });
    expect(report.results[0].status).toBe('failed');
    expect(report.results[0].reason).toContain('PD_KEY still holds the placeholder');
    expect(svc.stats().total).toBe(0);
  });
});
