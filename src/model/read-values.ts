// The values a run read from the environment (the loader's set, after YAML decoding): secrets
// wherever they flow. Masked twice, each at one place per medium: in the data an output is made
// from (plan, report, diagnostics, routing map), before anything shortens, wraps or escapes it;
// and in the finished text (the terminal's streams, the Action's guard), the net behind it.

import { MASK } from './env-markers.js';
import { Redactor } from './masking.js';

/**
 * Values at least this long are masked inside any text; shorter ones only where they stand alone
 * in a value of the data (a category, a cell, a word of a message): a two-letter value must not
 * shred every line.
 */
export const MIN_MASKED_INSIDE = 6;
/** Shorter values than this ("1", "on") cannot be told from ordinary text: not masked at all. */
export const MIN_MASKED = 3;

export class ReadValues {
  private readonly inData = new Redactor({ mask: MASK, minLength: MIN_MASKED_INSIDE, short: 'standalone' });
  private readonly inText = new Redactor({ mask: MASK, minLength: MIN_MASKED_INSIDE, short: 'skip' });

  constructor(values: Iterable<string> = []) {
    this.add(values);
  }

  /** Remembers more values (empty ones are ignored). `label` names them in `labelsIn`. */
  add(values: Iterable<string>, label?: string): void {
    for (const v of values) {
      if (v.length < MIN_MASKED) continue;
      this.inData.add(v, label);
      this.inText.add(v, label);
    }
  }

  get size(): number {
    return this.inData.size;
  }

  /** Finished text: every value of the set, in every form it may be echoed in, replaced. */
  maskText(text: string): string {
    return this.inText.redact(text);
  }

  /** Labels of the values `text` holds (what a log may name instead of the value). */
  labelsIn(text: string): string[] {
    return this.inText.labelsIn(text);
  }

  /** `value` (JSON-like data, Maps and Sets too) with every string masked: copied where something is masked, itself elsewhere. */
  maskData<T>(value: T): T {
    if (this.inData.size === 0) return value;
    // Copy on write for arrays and plain objects: one that holds nothing to mask is kept as it is
    // (most of a plan), so the copy costs only the paths to what is masked.
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.inData.redact(v);
      if (Array.isArray(v)) {
        let out: unknown[] | undefined;
        for (let i = 0; i < v.length; i++) {
          const x = walk(v[i]);
          if (x !== v[i]) (out ??= [...v])[i] = x;
        }
        return out ?? v;
      }
      if (v instanceof Map) return new Map([...v].map(([k, x]) => [walk(k), walk(x)]));
      if (v instanceof Set) return new Set([...v].map(walk));
      if (v !== null && typeof v === 'object') {
        const plain = Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null;
        const entries = Object.entries(v);
        const masked = entries.map(([k, x]): [string, unknown] => [this.inData.redact(k), walk(x)]);
        if (plain && masked.every(([k, x], i) => k === entries[i][0] && x === entries[i][1])) return v;
        const out: Record<string, unknown> = {};
        for (const [key, x] of masked) {
          // `__proto__` as an own member, never the prototype; any other key is a plain assignment.
          if (key === '__proto__') Object.defineProperty(out, key, { value: x, enumerable: true, writable: true, configurable: true });
          else out[key] = x;
        }
        return out;
      }
      return v;
    };
    return walk(value) as T;
  }

  /** An output of `data`: made from the masked data (before it is shortened or escaped), its text masked again. */
  render<T>(data: T, make: (data: T) => string): string {
    if (this.inData.size === 0) return make(data);
    return this.maskText(make(this.maskData(data)));
  }
}

/** `render` of `secrets` when there are any. */
export function renderMasked<T>(secrets: ReadValues | undefined, data: T, make: (data: T) => string): string {
  return secrets ? secrets.render(data, make) : make(data);
}
