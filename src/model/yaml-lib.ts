// yaml's library, loaded on first use. The fast reader (yaml-simple.ts) reads most files, and then
// validate and plan never need yaml: loading it costs about 25 ms of CPU at every start. The Action's
// bundle (src/github/bundle.ts) replaces this module with a static import, so that yaml is bundled.

import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');

let lib: Yaml | undefined;

export function yamlLib(): Yaml {
  lib ??= createRequire(import.meta.url)('yaml') as Yaml;
  return lib;
}

/** Whether yaml has been loaded by this module (for the tests of the laziness). */
export function yamlLoaded(): boolean {
  return lib !== undefined;
}
