import { describe, expect, it } from 'vitest';
import { apiPath } from '../../src/kinds/common.js';
import { MalformedBodyError } from '../../src/model/service-body.js';

describe('apiPath: an id from the service never addresses another path', () => {
  it('encodes ids as one path segment', () => {
    expect(apiPath('AlertChannels', 'a/b?c#d')).toBe('/api/v2/AlertChannels/a%2Fb%3Fc%23d');
    expect(apiPath('AlertChannels', '...')).toBe('/api/v2/AlertChannels/...');
    expect(apiPath('AlertChannels', '%2e%2e')).toBe('/api/v2/AlertChannels/%252e%252e');
  });

  it.each(['', '.', '..'])('refuses the id %j, which a URL resolver reads as a path step or as nothing', (id) => {
    let thrown: unknown;
    try {
      apiPath('AlertChannels', id);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(MalformedBodyError);
    expect((thrown as MalformedBodyError).code).toBe('unaddressable-id');
    expect((thrown as Error).message).toContain(`an id ${JSON.stringify(id)} would address another path`);
  });
});
