// Fault injection: a seeded PRNG decides, request by request, which requests fail and how, so a
// failing run can be repeated exactly with the same seed and the same request sequence.

export type Fault = 'rate-limit' | 'server-error' | 'unavailable' | 'drop' | 'commit-then-500';

/** mulberry32: a small, well-known 32-bit PRNG; returns numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const READ_FAULTS: Fault[] = ['rate-limit', 'server-error', 'unavailable', 'drop'];
const WRITE_FAULTS: Fault[] = [...READ_FAULTS, 'commit-then-500'];

export class FaultInjector {
  private readonly share: number;
  private readonly random: () => number;

  constructor(share: number, seed: number) {
    this.share = share;
    this.random = mulberry32(seed);
  }

  /** The fault for the next request, if any. Only resource writes can be committed and then answered 500. */
  next(isResourceWrite: boolean): Fault | undefined {
    if (this.share <= 0) return undefined;
    if (this.random() >= this.share) return undefined;
    const pool = isResourceWrite ? WRITE_FAULTS : READ_FAULTS;
    return pool[Math.floor(this.random() * pool.length)];
  }
}
