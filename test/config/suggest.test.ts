import { describe, expect, it } from 'vitest';
import { editDistance, levenshtein, membership, misspellingReach, suggest } from '../../src/model/suggest.js';

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

describe('editDistance and membership in a closed set', () => {
  it('counts an adjacent transposition as one edit (Damerau-Levenshtein)', () => {
    expect(editDistance('Complaince', 'Compliance')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('reaches a third of the known value, at most two edits: short values only by case', () => {
    expect(['eu', 'com', 'Cloud', 'GcpCfg', 'K8sActivity'].map(misspellingReach)).toEqual([0, 1, 1, 2, 2]);
  });

  it('tells known, misspelt and new apart, by case where the set is case-sensitive', () => {
    const sites = ['com', 'eu'];
    expect(membership('eu', sites, true)).toEqual({ is: 'known', value: 'eu' });
    expect(membership('EU', sites, true)).toEqual({ is: 'misspelt', value: 'eu' });
    expect(membership('EU', sites, false)).toEqual({ is: 'known', value: 'eu' });
    expect(membership('us', sites, true)).toEqual({ is: 'unknown' }); // one edit from `eu`, but `eu` is too short to reach it
    expect(membership('cmo', sites, true)).toEqual({ is: 'misspelt', value: 'com' });
    const categories = ['App', 'Compliance', 'Cloud'];
    expect(membership('Complaince', categories, false)).toEqual({ is: 'misspelt', value: 'Compliance' });
    expect(membership('Cmplaince', categories, false)).toEqual({ is: 'misspelt', value: 'Compliance' });
    expect(membership('QuantumWorkloads', categories, false)).toEqual({ is: 'unknown' });
    // The nearest known value wins, whatever the order.
    expect(membership('AzureDspn', ['AwsDspm', 'AzureDspm'], true)).toEqual({ is: 'misspelt', value: 'AzureDspm' });
  });
});
