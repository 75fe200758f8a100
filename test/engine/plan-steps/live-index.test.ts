import { describe, expect, it } from 'vitest';
import { indexLive, livesAt } from '../../../src/plan/steps/live-index.js';
import { live } from '../plan-fakes.js';
import { frozen } from './helpers.js';

describe('index', () => {
  const l = frozen([
    live('Channel', 'a', 'C1', {}),
    live('Channel', 'a', 'C2', {}),
    live('Rule', 'a', 'R1', {}),
    live('Channel', 'a', 'C3', {}, { account: 'staging' }),
  ]);
  const index = indexLive(l);

  it.each([
    ['prod/Channel/a', ['C1', 'C2']],
    ['prod/Rule/a', ['R1']],
    ['staging/Channel/a', ['C3']],
    ['prod/Channel/b', []],
  ])('%s → %j', (key, ids) => {
    expect(livesAt(index, key).map((r) => r.id)).toEqual(ids);
  });

  it('groups by account in the order of the live state', () => {
    expect(index.byAccount.get('prod')?.map((r) => r.id)).toEqual(['C1', 'C2', 'R1']);
    expect(index.byAccount.get('staging')?.map((r) => r.id)).toEqual(['C3']);
  });
});
