import { describe, expect, it } from 'vitest';
import { checkAgainstLive } from '../../../src/plan/steps/check.js';
import { indexLive } from '../../../src/plan/steps/live-index.js';
import { desired, FAKE_KINDS, live } from '../plan-fakes.js';
import { frozen } from './helpers.js';

const profile = (account: string, key: string) => live('Profile', 'P', 'P', { extends: 'X' }, { account, info: { descriptionKeys: [{ name: key }] } });

describe('check against live', () => {
  const index = indexLive(frozen([profile('prod', 'MID'), profile('staging', 'OTHER')]));
  const cases: { name: string; desired: ReturnType<typeof desired>[]; messages: string[] }[] = [
    { name: 'a known placeholder passes', desired: [desired('Template', 'P.t', { subject: '{{MID}}' }, { parent: 'P' })], messages: [] },
    { name: 'an unknown one is reported', desired: [desired('Template', 'P.t', { subject: '{{NOPE}}' }, { parent: 'P' })], messages: ['P.t uses {{NOPE}}'] },
    {
      name: 'each account is checked against its own live state',
      desired: [desired('Template', 'P.t', { subject: '{{MID}}' }, { parent: 'P', account: 'staging' })],
      messages: ['P.t uses {{MID}}'],
    },
    { name: 'kinds without a check and unknown kinds add nothing', desired: [desired('Channel', 'c', {}), desired('Nope', 'x', {})], messages: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(checkAgainstLive(frozen(c.desired), FAKE_KINDS, index).map((d) => d.message)).toEqual(c.messages);
    });
  }
});

describe('check against live: an account nothing lives in', () => {
  it('the kind checks against an empty live list, and gets the root settings', () => {
    const seen: unknown[] = [];
    const kinds = FAKE_KINDS.map((k) => (k.kind === 'Channel' ? { ...k, check: (_d: unknown, lives: unknown, settings: unknown) => (seen.push(lives, settings), []) } : k));
    checkAgainstLive([desired('Channel', 'c', {}, { account: 'empty' })], kinds, indexLive([]), { prefix: 'X' });
    expect(seen).toEqual([[], { prefix: 'X' }]);
  });
});
