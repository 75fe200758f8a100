// A small validator for the JSON-Schema subset the emulator's request schemas use. Its own code
// (not ajv) so that error texts look like the service's: `Invalid data: #1: [data/slackUrl: required]`.

import { HttpError } from './http.js';

export type SchemaType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean';

export interface Schema {
  type?: SchemaType;
  description?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  /** Informational: every request schema of the service allows additional properties. */
  additionalProperties?: boolean;
  items?: Schema;
  enum?: readonly (string | number)[];
  minLength?: number;
  pattern?: string;
  format?: 'email';
  minimum?: number;
  maximum?: number;
  minItems?: number;
  uniqueItems?: boolean;
  /** A null is accepted (and stored) for this member: optional members of records the live service holds. */
  nullable?: boolean;
  /** Valid when one of these is (the first branch's problems are reported otherwise). */
  oneOf?: Schema[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function hasType(v: unknown, t: SchemaType): boolean {
  switch (t) {
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
  }
}

function join(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}/${key}`;
}

/** Every violation of `schema` by `value`, each as `path: what`. */
export function validate(schema: Schema, value: unknown, path = ''): string[] {
  const errors: string[] = [];
  if (schema.oneOf !== undefined) {
    const each = schema.oneOf.map((s) => validate(s, value, path));
    if (!each.some((e) => e.length === 0)) errors.push(...(each[0] ?? []));
  }
  if (schema.type !== undefined && !hasType(value, schema.type)) {
    errors.push(`${path}: must be ${schema.type}, got ${typeName(value)}`);
    return errors;
  }
  if (schema.enum !== undefined && !schema.enum.includes(value as string | number)) {
    errors.push(`${path}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      errors.push(`${path}: must not be shorter than ${schema.minLength} character${schema.minLength === 1 ? '' : 's'}`);
    }
    if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) {
      errors.push(`${path}: must match pattern ${schema.pattern}`);
    }
    if (schema.format === 'email' && !EMAIL.test(value)) errors.push(`${path}: must be an e-mail address`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${path}: must be >= ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${path}: must be <= ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      errors.push(`${path}: must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`);
    }
    if (schema.uniqueItems) {
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const key = JSON.stringify(item);
        if (seen.has(key)) errors.push(`${join(path, i)}: duplicate item ${key}`);
        seen.add(key);
      });
    }
    if (schema.items !== undefined) {
      const items = schema.items;
      value.forEach((item, i) => errors.push(...validate(items, item, join(path, i))));
    }
  }
  if (hasType(value, 'object')) {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (obj[key] === undefined || obj[key] === null) errors.push(`${join(path, key)}: required`);
    }
    for (const [key, sub] of Object.entries(schema.properties ?? {})) {
      if (obj[key] === undefined) continue;
      // A null for a required member was reported above; a null elsewhere is a type error.
      if (obj[key] === null && ((schema.required ?? []).includes(key) || sub.nullable === true)) continue;
      errors.push(...validate(sub, obj[key], join(path, key)));
    }
  }
  return errors;
}

/** The service's 400 text for a list of violations. */
export function invalidData(errors: string[]): HttpError {
  const parts = errors.map((e, i) => `#${i + 1}: [${e}]`);
  return new HttpError(400, `Invalid data: ${parts.join(', ')}`);
}

/** Throws 400 unless `value` satisfies `schema`. */
export function check(schema: Schema, value: unknown): void {
  const errors = validate(schema, value);
  if (errors.length > 0) throw invalidData(errors);
}
