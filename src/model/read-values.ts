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
        const proto = Object.getPrototypeOf(v);
        const source = v as Record<string, unknown>;
        const keys = Object.keys(source);
        // Another object (a class instance) is always copied into a plain one; a plain one only from
        // its first member that changes, the members before it as they are.
        let out: Record<string, unknown> | undefined = proto === Object.prototype || proto === null ? undefined : {};
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          const x = source[k];
          const mk = this.inData.redact(k);
          const mx = walk(x);
          if (out === undefined && (mk !== k || mx !== x)) {
            out = {};
            for (let j = 0; j < i; j++) own(out, keys[j], source[keys[j]]);
          }
          if (out !== undefined) own(out, mk, mx);
        }
        return out ?? v;
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

/** `key` as an own member of `out`: `__proto__` too, never the prototype; any other key is a plain assignment. */
function own(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** `render` of `secrets` when there are any. */
export function renderMasked<T>(secrets: ReadValues | undefined, data: T, make: (data: T) => string): string {
  return secrets ? secrets.render(data, make) : make(data);
}
