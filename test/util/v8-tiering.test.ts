import { describe, expect, it } from 'vitest';
import { INTERRUPT_BUDGET, tieringFlags, tuneTiering } from '../../src/util/v8-tiering.js';

describe("V8's tier-up for a run of seconds", () => {
  it("raises Node 20's interrupt budget (V8 11), the version it was measured on", () => {
    const set: string[] = [];
    expect(tuneTiering('11.3.244.8-node.38', (f) => set.push(f))).toEqual([`--interrupt-budget=${INTERRUPT_BUDGET}`]);
    expect(set).toEqual(['--interrupt-budget=1000000']);
    expect(INTERRUPT_BUDGET).toBeGreaterThan(67_584);
  });

  it('sets nothing on a V8 that does not know the flag (it would print "unrecognized flag" on stdout)', () => {
    for (const version of ['12.4.254.21-node.57', '13.6.233.17-node.53', '110.1.0', '1.3', '']) {
      const set: string[] = [];
      expect(tuneTiering(version, (f) => set.push(f)), version).toEqual([]);
      expect(set, version).toEqual([]);
      expect(tieringFlags(version), version).toEqual([]);
    }
  });
});
