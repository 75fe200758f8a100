import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exportNameOf, kindFolders, REGISTRY_FILE, registrySource } from '../../src/kinds/generate-registry.js';
import { DOCUMENT_KINDS, KINDS, kindForDocument, kindOf } from '../../src/kinds/index.js';
import type { Kind } from '../../src/kinds/types.js';

const KINDS_DIR = fileURLToPath(new URL('../../src/kinds/', import.meta.url));
const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

/** Kind folders on disk: every folder under src/kinds with an index.ts. */
const folders = kindFolders(KINDS_DIR);

describe('kind registry', () => {
  it('finds the kind folders on disk', () => {
    // A lister that found nothing would make every check below pass.
    expect(folders.length).toBeGreaterThanOrEqual(6);
    expect(folders).toContain('alert-channel');
  });

  it('lists exactly the kind folders on disk', () => {
    expect(folders.map(exportNameOf).sort()).toEqual(KINDS.map((k) => k.kind).sort());
  });

  it('has a generated registry that matches the folders (else: run npm run generate)', () => {
    const committed = readFileSync(KINDS_DIR + REGISTRY_FILE, 'utf8');
    expect(committed, `src/kinds/${REGISTRY_FILE} is stale: run npm run generate`).toBe(registrySource(folders));
  });

  it('would register a new folder and drop a removed one', () => {
    const source = registrySource(['alert-channel', 'agent-access-token']);
    expect(source).toContain("import { AgentAccessToken } from './agent-access-token/index.js';");
    expect(source).toContain('[AlertChannel, AgentAccessToken]');
    expect(source).not.toContain('AlertRule');
  });

  it.each(folders)('%s/index.ts exports the registered Kind under its name', async (folder) => {
    const mod = (await import(/* @vite-ignore */ pathToFileURL(`${KINDS_DIR}${folder}/index.ts`).href)) as Record<string, Kind>;
    const name = exportNameOf(folder);
    expect(mod[name]?.kind).toBe(name);
    expect(KINDS).toContain(mod[name]);
  });

  it('orders the kinds by their declared order, each order unique', () => {
    // What a kind refers to, and its parent, come before it: the tie-break of plan order never
    // puts a rule before the channels it routes to.
    const at = new Map(KINDS.map((k, i) => [k.kind, i]));
    for (const [i, k] of KINDS.entries()) {
      for (const ref of (k.references ?? [])) if (ref.kind !== k.kind) expect(at.get(ref.kind), `${k.kind} refers to ${ref.kind}`).toBeLessThan(i);
      if (k.hierarchy?.parentKind) expect(at.get(k.hierarchy?.parentKind), `${k.kind}'s parent`).toBeLessThan(i);
    }
    expect(DOCUMENT_KINDS).toEqual(KINDS.filter((k) => k.documentKind !== null).map((k) => k.documentKind));
    expect(DOCUMENT_KINDS.length).toBe(folders.length - KINDS.filter((k) => k.documentKind === null).length);
    const orders = KINDS.map((k) => k.order);
    expect(new Set(orders).size).toBe(orders.length);
    expect([...orders].sort((a, b) => a - b)).toEqual(orders);
  });

  it('looks kinds up by name and by document kind', () => {
    expect(kindOf('AlertRule').kind).toBe('AlertRule');
    expect(() => kindOf('AlertPolicy')).toThrow(/unknown resource kind "AlertPolicy"/);
    expect(kindForDocument('CloudAccount')?.kind).toBe('CloudAccount');
    expect(kindForDocument('AlertTemplate')).toBeUndefined();
  });

  it('names a schema in schemas/ for every document kind and builds it; none for the others', () => {
    for (const k of KINDS) {
      if (k.documentKind === null) {
        expect(k.schema).toBeNull();
        expect(k.documents).toBeUndefined();
        expect(k.hierarchy?.declaredIn, `${k.kind} says how files declare it`).toMatch(/\S/);
        continue;
      }
      expect(k.schema).toMatch(/\.schema\.json$/);
      expect(existsSync(SCHEMAS_DIR + k.schema), `schemas/${k.schema}`).toBe(true);
      expect(k.documents!.schemas()[k.schema!]?.title, k.kind).toBe(k.documentKind);
    }
  });

  it('names a parent kind that is registered and owns its children', () => {
    for (const k of KINDS.filter((x) => x.hierarchy?.parentKind !== undefined)) expect(kindOf(k.hierarchy!.parentKind!).hierarchy?.ownsChildren).toBe(true);
  });

  it('references only registered kinds', () => {
    for (const k of KINDS) for (const r of (k.references ?? [])) expect(() => kindOf(r.kind), `${k.kind} → ${r.kind}`).not.toThrow();
  });
});
