import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_KINDS, KINDS, kindForDocument, kindOf } from '../../src/kinds/index.js';
import type { Kind } from '../../src/kinds/types.js';

const KINDS_DIR = fileURLToPath(new URL('../../src/kinds/', import.meta.url));
const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));
/** Files in src/kinds that are not kinds: the registry, the contracts, and shared helper modules. */
const NOT_KINDS = ['index.ts', 'types.ts', 'data.ts', 'common.ts', 'integration.ts', 'profile-records.ts', 'spellings.ts'];

const kindFiles = readdirSync(KINDS_DIR)
  .filter((f) => f.endsWith('.ts') && !NOT_KINDS.includes(f))
  .sort();
/** `alert-channel.ts` → `AlertChannel`. */
const kindNameOf = (file: string) => file.replace(/\.ts$/, '').replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());

describe('kind registry', () => {
  it('lists exactly the kind files on disk', () => {
    expect(kindFiles.map(kindNameOf).sort()).toEqual(KINDS.map((k) => k.kind).sort());
    for (const helper of NOT_KINDS) expect(existsSync(KINDS_DIR + helper), `${helper} is listed as a helper but missing`).toBe(true);
  });

  it.each(kindFiles)('%s exports the registered Kind under its name', async (file) => {
    const mod = (await import(`../../src/kinds/${file.replace(/\.ts$/, '.js')}`)) as Record<string, Kind>;
    const name = kindNameOf(file);
    expect(mod[name]?.kind).toBe(name);
    expect(KINDS).toContain(mod[name]);
  });

  it('keeps the agreed order and document kinds', () => {
    expect(KINDS.map((k) => k.kind)).toEqual(['AlertChannel', 'AlertRule', 'AlertProfile', 'AlertTemplate', 'CloudAccount', 'ContainerRegistry']);
    expect(DOCUMENT_KINDS).toEqual(['AlertChannel', 'AlertRule', 'AlertProfile', 'CloudAccount', 'ContainerRegistry']);
  });

  it('looks kinds up by name and by document kind', () => {
    expect(kindOf('AlertRule').kind).toBe('AlertRule');
    expect(() => kindOf('AlertPolicy')).toThrow(/unknown resource kind "AlertPolicy"/);
    expect(kindForDocument('CloudAccount')?.kind).toBe('CloudAccount');
    expect(kindForDocument('AlertTemplate')).toBeUndefined();
  });

  it('names a schema in schemas/ for every document kind, and none for the others', () => {
    for (const k of KINDS) {
      if (k.documentKind === null) {
        expect(k.schema).toBeNull();
        continue;
      }
      expect(k.schema).toMatch(/\.schema\.json$/);
      expect(existsSync(SCHEMAS_DIR + k.schema), `schemas/${k.schema}`).toBe(true);
    }
  });

  it('names a parent kind that is registered and owns its children', () => {
    for (const k of KINDS.filter((x) => x.parentKind !== undefined)) expect(kindOf(k.parentKind!).ownsChildren).toBe(true);
  });
});
