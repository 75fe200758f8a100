// `npm run mutate`: mutation testing of the safety core in groups (docs/mutation.md).
//
// Each group of stryker.config.mjs mutates its files against the in-process tests that exercise them.
// One run over everything with the whole suite never ends: the e2e suites plan in `beforeAll` hooks,
// which Stryker cannot attribute to a test, so every mutant they reach reruns all of the suite.
//
//   node .ci/mutate.mjs                      every group in turn, then the merged report
//   node .ci/mutate.mjs --group plan-steps   one group (a CI matrix job), then the merged report
//   node .ci/mutate.mjs --mutate FILES ...   one Stryker run over FILES with their groups' tests
//   node .ci/mutate.mjs --merge              only merge the groups' reports found on disk
//   node .ci/mutate.mjs --list               the group names as JSON (the CI matrix)
//
// Other arguments (--concurrency 1, --timeoutMS 3000...) go to Stryker as they are. The merged
// report is reports/mutation/mutation.json and mutation.html; each group's stays in
// reports/mutation/groups/<name>/.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { groups, strict } from '../stryker.config.mjs';

const OUT = 'reports/mutation';
const GROUPS_DIR = `${OUT}/groups`;

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) fail(`${name} needs a value`);
  args.splice(i, 2);
  return value;
};
const flag = (name) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};

function fail(message) {
  console.error(`mutate: ${message}`);
  process.exit(1);
}

function stryker(mutate, tests, reportDir) {
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', '--mutate', mutate.join(','), ...args], {
    stdio: 'inherit',
    env: { ...process.env, MUTATE_TESTS: tests.join(','), MUTATE_REPORT_DIR: reportDir },
  });
  if (run.status !== 0) fail(`stryker ended with ${run.status ?? run.signal}`);
}

// A file named on the command line (maybe with a line range) belongs to the groups whose globs match it.
function testsFor(files) {
  const matches = (file, glob) => file === glob || (glob.includes('*') && path.matchesGlob(file, glob));
  const owners = groups.filter((g) => files.some((f) => g.mutate.some((glob) => matches(f.replace(/:[\d:-]+$/, ''), glob))));
  return [...new Set((owners.length > 0 ? owners : groups).flatMap((g) => g.tests))];
}

// Merge the groups' reports (mutation-testing-report-schema): files are disjoint between groups;
// mutant and test ids are numbered per run, so each is prefixed with its group's name (and so are the
// test ids a mutant names as killing or covering it).
function merge() {
  const found = existsSync(GROUPS_DIR)
    ? readdirSync(GROUPS_DIR).filter((name) => existsSync(`${GROUPS_DIR}/${name}/mutation.json`))
    : [];
  if (found.length === 0) fail(`no group report in ${GROUPS_DIR}`);
  let merged;
  for (const name of found.sort()) {
    const report = JSON.parse(readFileSync(`${GROUPS_DIR}/${name}/mutation.json`, 'utf8'));
    merged ??= { ...report, files: {}, testFiles: {} };
    for (const [file, result] of Object.entries(report.files)) {
      if (merged.files[file]) fail(`${file} is in two groups`);
      const ours = (ids) => ids?.map((id) => `${name}-${id}`);
      const mutants = result.mutants.map((m) => ({
        ...m,
        id: `${name}-${m.id}`,
        ...(m.killedBy ? { killedBy: ours(m.killedBy) } : {}),
        ...(m.coveredBy ? { coveredBy: ours(m.coveredBy) } : {}),
      }));
      merged.files[file] = { ...result, mutants };
    }
    for (const [file, result] of Object.entries(report.testFiles ?? {})) {
      const known = merged.testFiles[file]?.tests ?? [];
      merged.testFiles[file] = { ...result, tests: [...known, ...result.tests.map((t) => ({ ...t, id: `${name}-${t.id}` }))] };
    }
  }
  writeFileSync(`${OUT}/mutation.json`, JSON.stringify(merged));
  writeFileSync(`${OUT}/mutation.html`, html(merged));
  printScores(merged, found);
}

// The page Stryker's own HTML reporter writes: the report viewer it ships, with the report inline.
function html(report) {
  const require = createRequire(createRequire(import.meta.url).resolve('@stryker-mutator/core'));
  const viewer = readFileSync(require.resolve('mutation-testing-elements/dist/mutation-test-elements.js'), 'utf8');
  const data = JSON.stringify(report).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><script>${viewer}</script></head>
<body>
<mutation-test-report-app titlePostfix="Stryker"></mutation-test-report-app>
<script>
  const app = document.querySelector('mutation-test-report-app');
  app.report = ${data};
  const theme = () => { document.body.style.backgroundColor = app.themeBackgroundColor; };
  app.addEventListener('theme-changed', theme);
  theme();
</script>
</body>
</html>
`;
}

// Per file: the score Stryker prints (detected among valid mutants; ignored ones left out).
// Each file's score against its target (95 % for the strict files, 90 % for the rest), and the total.
// A file under its target makes the run fail (exit 1) once the reports are written.
function printScores(report, found) {
  console.log(`\nmerged ${found.join(', ')} into ${OUT}/mutation.json and mutation.html`);
  const total = { detected: 0, valid: 0 };
  const under = [];
  for (const [file, result] of Object.entries(report.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const count = (...states) => result.mutants.filter((m) => states.includes(m.status)).length;
    const detected = count('Killed', 'Timeout');
    const valid = detected + count('Survived', 'NoCoverage');
    total.detected += detected;
    total.valid += valid;
    const target = strict.includes(file) ? 95 : 90;
    const score = valid === 0 ? 100 : (100 * detected) / valid;
    if (score < target) under.push(`${file} (${score.toFixed(1)} %, target ${target} %)`);
    console.log(`${`${score.toFixed(1)} %`.padStart(8)}  ${file} (target ${target} %; ${detected} detected, ${count('Survived')} survived, ${count('NoCoverage')} not covered, ${count('Ignored')} ignored)`);
  }
  const all = total.valid === 0 ? 100 : (100 * total.detected) / total.valid;
  console.log(`${`${all.toFixed(1)} %`.padStart(8)}  all files (${total.detected} of ${total.valid} mutants detected)`);
  if (under.length > 0) {
    console.error(`mutate: under target: ${under.join('; ')}`);
    process.exitCode = 1;
  }
}

if (flag('--list')) {
  console.log(JSON.stringify(groups.map((g) => g.name)));
} else if (flag('--merge')) {
  merge();
} else {
  const files = option('--mutate');
  if (files !== undefined) {
    const list = files.split(',');
    stryker(list, process.env.MUTATE_TESTS ? process.env.MUTATE_TESTS.split(',') : testsFor(list), OUT);
  } else {
    const names = option('--group')?.split(',') ?? groups.map((g) => g.name);
    for (const name of names) {
      const group = groups.find((g) => g.name === name);
      if (!group) fail(`no group ${name} (groups: ${groups.map((g) => g.name).join(', ')})`);
      mkdirSync(`${GROUPS_DIR}/${name}`, { recursive: true });
      stryker(group.mutate, group.tests, `${GROUPS_DIR}/${name}`);
    }
    merge();
  }
}
