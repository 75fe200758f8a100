// Two reference rules of issue 22, generic over kinds: an id written for a name stands for that
// name (with a warning), and a reference that takes only some resources of its kind refuses others.

import { describe, expect, it } from 'vitest';
import { indexLive } from '../../../src/plan/steps/live-index.js';
import { namesForIds } from '../../../src/plan/steps/reference-ids.js';
import { resolveReferences } from '../../../src/plan/steps/references.js';
import type { Kind } from '../../../src/kinds/types.js';
import type { JsonObject } from '../../../src/model/json.js';
import { Channel, desired, FAKE_KINDS, live, Rule } from '../plan-fakes.js';
import { decisionOf, decisionsOf } from './helpers.js';

describe('ids for names', () => {
  const lives = indexLive([live('Channel', 'ops', 'C1', {}), live('Channel', 'C2', 'C9', {}), live('Channel', 'pager', 'C2', {})]);

  it('reads a live id as the name of its resource, with a warning that names it', () => {
    const r = namesForIds([desired('Rule', 'r', { channels: ['C1', 'ops'] }, { line: 7 })], FAKE_KINDS, lives);
    expect(r.desired[0].spec.channels).toEqual(['ops', 'ops']);
    // An id after names and before another name: the names around it kept, in their places.
    expect(namesForIds([desired('Rule', 'r', { channels: ['pager', 'C1', 'ops', 'nothing'] })], FAKE_KINDS, lives).desired[0].spec.channels).toEqual(['pager', 'ops', 'ops', 'nothing']);
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.line, d.field])).toEqual([['warning', 'reference-by-id', 7, '/spec/channels']]);
    expect(r.diagnostics[0].message).toBe('Rule r names Channel C1 by its id: that is Channel "ops"');
  });

  it('leaves a value that is a name (declared or live) or no id at all', () => {
    // `C2` is the name of one channel and the id of another: the name wins.
    const d = [desired('Rule', 'r', { channels: ['C2', 'nothing'] }), desired('Channel', 'C1', {})];
    const r = namesForIds(d, FAKE_KINDS, lives);
    expect(r.desired[0]).toBe(d[0]);
    expect(r.diagnostics).toEqual([]);
    // `C1` is declared as a name here, so it is not read as the live id C1.
    expect(namesForIds([desired('Rule', 'r', { channels: ['C1'] }), desired('Channel', 'C1', {})], FAKE_KINDS, lives).diagnostics).toEqual([]);
  });
});

describe('a reference that takes only some resources of its kind', () => {
  const OnlyEmail: Kind = { ...Rule, references: [{ kind: 'Channel', pointer: '/channels', only: { member: '/type', values: ['EmailUser'] } }] };
  const rule = decisionOf(desired('Rule', 'r', { channels: ['ops'] }, { line: 3 }), { kind: OnlyEmail });

  it('refuses a live target of another type, at the referring document', () => {
    const r = resolveReferences(decisionsOf([rule]), indexLive([live('Channel', 'ops', 'C1', { type: 'Webhook' })]), []);
    expect(r.diagnostics.map((d) => [d.code, d.line, d.field])).toEqual([['reference-not-allowed', 3, '/channels']]);
    expect(r.diagnostics[0].message).toContain('whose type is Webhook; a Rule takes only EmailUser');
  });

  it('judges a declared target by its declaration, not by what is live', () => {
    const declaredEmail = decisionOf(desired('Channel', 'ops', { type: 'EmailUser' }), { kind: Channel });
    const r = resolveReferences(decisionsOf([declaredEmail, rule]), indexLive([live('Channel', 'ops', 'C1', { type: 'Webhook' })]), []);
    expect(r.diagnostics).toEqual([]);
    expect(r.refs.get(rule.key)).toEqual([{ kind: 'Channel', name: 'ops', id: 'C1' }]);
  });
});

describe('ids for names: one reference, other kinds and accounts', () => {
  // A rule that names one channel (a scalar reference), beside the fake Rule's list.
  const OneChannel: Kind = { ...Rule, references: [{ kind: 'Channel', pointer: '/channel' }] };
  const kinds = FAKE_KINDS.map((k) => (k === Rule ? OneChannel : k));
  const lives = indexLive([live('Channel', 'ops', 'C1', {}), live('Rule', 'other', 'R7', {})]);

  it('a single id is read as its name, with a warning that says what to write instead', () => {
    const r = namesForIds([desired('Rule', 'r', { channel: 'C1' })], kinds, lives);
    expect(r.desired[0].spec).toEqual({ channel: 'ops' });
    expect(r.diagnostics.map((d) => d.hint)).toEqual(['write the name "ops" instead of the id']);
  });

  it('a single name, an absent reference and an id of another kind are left as they are, the resource itself unchanged', () => {
    for (const spec of [{ channel: 'ops' }, {}, { channel: 'R7' }, { channel: 3 }] as JsonObject[]) {
      const d = desired('Rule', 'r', spec);
      const r = namesForIds([d], kinds, lives);
      expect(r.desired[0]).toBe(d);
      expect(r.diagnostics).toEqual([]);
    }
  });

  it('an account nothing lives in and a kind not registered are passed through', () => {
    const elsewhere = desired('Rule', 'r', { channel: 'C1' }, { account: 'empty' });
    const unknown = desired('Nope', 'n', { channel: 'C1' });
    const r = namesForIds([elsewhere, unknown], kinds, lives);
    expect(r.desired[0]).toBe(elsewhere);
    expect(r.desired[1]).toBe(unknown);
    expect(r.diagnostics).toEqual([]);
  });
});
