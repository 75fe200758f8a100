import { describe, expect, it } from 'vitest';
import { levenshtein, suggest } from '../../src/model/suggest.js';

describe('suggest', () => {
  it('measures edit distance', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', 'abc')).toBe(3);
    expect(levenshtein('same', 'same')).toBe(0);
  });

  it('prefers a case-insensitive match, then the nearest close one, and never the input itself', () => {
    expect(suggest('slackurl', ['webhookUrl', 'slackUrl'])).toBe('slackUrl');
    expect(suggest('AlertChanel', ['AlertChannel', 'AlertRule'])).toBe('AlertChannel');
    expect(suggest('acounts', ['accounts', 'defaults', 'prune'])).toBe('accounts');
    expect(suggest('completely-different', ['accounts', 'prune'])).toBeUndefined();
    expect(suggest('a', ['a', 'b'])).toBeUndefined();
    expect(suggest('Ab', ['ab', 'cd'])).toBe('ab');
  });
});
