// Config takes what is kind-specific from the kinds: the hint for a kind without documents, the
// cross-file reference check (Kind.references), and the secret members a file may hold.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { KINDS } from '../../src/kinds/index.js';
import { makeRepo, ROOT_TWO } from './helpers.js';

const channel = (name: string, account: string) =>
  `kind: AlertChannel\nname: ${name}\naccount: ${account}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: \${env:HOOK}\n`;
const ENV = { HOOK: 'https://hooks.example.com/x' };

async function diagnosticsOf(files: Record<string, string>) {
  const dir = await makeRepo({ 'postureops.yaml': ROOT_TWO, ...files });
  return (await loadConfig(dir, { env: ENV, cwd: dir })).diagnostics;
}

describe('config driven by the kinds', () => {
  it('gives the hint of a kind without documents from that kind', async () => {
    const template = KINDS.find((k) => k.documentKind === null && k.hierarchy?.declaredIn !== undefined)!;
    const [d] = (await diagnosticsOf({ 'a.yaml': `kind: ${template.kind}\nname: x\n` })).filter((x) => x.code === 'unknown-kind');
    expect(d.hint).toBe(template.hierarchy?.declaredIn);
  });

  it('reports a referenced name per account it is missing in, at the item, with a suggestion', async () => {
    const rule = 'kind: AlertRule\nname: r\naccount: "*"\nspec:\n  channels: [ops, pagr]\n  severity: [critical]\n';
    const found = (await diagnosticsOf({ 'c.yaml': channel('ops', 'prod') + '---\n' + channel('pager', '"*"'), 'r.yaml': rule })).filter(
      (d) => d.code === 'reference-not-declared',
    );
    expect(found.map((d) => [d.message, d.line, d.column, d.field, d.hint])).toEqual([
      ['AlertChannel `ops` is not declared for account staging; plan will also accept a live AlertChannel of that name', 5, 14, '/spec/channels/0', undefined],
      ['AlertChannel `pagr` is not declared for account prod, staging; plan will also accept a live AlertChannel of that name', 5, 19, '/spec/channels/1', 'did you mean `pager`?'],
    ]);
  });

  it('accepts references every account declares', async () => {
    const rule = 'kind: AlertRule\nname: r\naccount: "*"\nspec:\n  channels: [pager]\n  severity: [critical]\n';
    const codes = (await diagnosticsOf({ 'c.yaml': channel('pager', '"*"'), 'r.yaml': rule })).map((d) => d.code);
    expect(codes).toEqual([]);
  });
});
