import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildFreshness, readStamp, sourceState, stampPath, writeStamp } from '../../scripts/build-state.mjs';
import { ensureBuilt, repoRoot } from '../helpers/run.js';

/**
 * The tests that run the built binary never run a dist/ older than the sources: `npm run build`
 * (scripts/build.mjs) records the state of the sources it built from, and ensureBuilt()
 * (test/helpers/run.ts) builds again when dist/ is missing or the sources differ from that
 * record, and fails naming the fix when that build fails. Checked on projects made for the test,
 * whose scripts/build.mjs stands in for tsup: the real build takes a minute and other tests are
 * running the real dist/.
 */

const buildState = pathToFileURL(join(repoRoot, 'scripts', 'build-state.mjs')).href;

/** A build that writes dist/bin.js and the stamp as the real one does, counting its runs in build-runs. */
const goodBuild = `
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { removeStamp, sourceState, writeStamp } from ${JSON.stringify(buildState)};
const root = process.cwd();
const state = sourceState(root);
removeStamp(root);
appendFileSync('build-runs', 'run\\n');
mkdirSync('dist', { recursive: true });
writeFileSync('dist/bin.js', '// built\\n');
writeStamp(state, root);
`;

/** A project with sources, a build, and (unless told) dist/ built from them. */
function project(build = goodBuild, built = true): string {
  const root = mkdtempSync(join(tmpdir(), 'core-ensure-built-'));
  mkdirSync(join(root, 'src', 'page'), { recursive: true });
  mkdirSync(join(root, 'scripts'));
  writeFileSync(join(root, 'src', 'main.ts'), 'export const answer = 42;\n');
  writeFileSync(join(root, 'src', 'page', 'app.js'), 'console.log(1);\n');
  writeFileSync(join(root, 'tsup.config.ts'), 'export default {};\n');
  writeFileSync(join(root, 'package.json'), '{"name":"p","version":"1.0.0"}\n');
  writeFileSync(join(root, 'scripts', 'build.mjs'), build);
  if (built) {
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist', 'bin.js'), '// built\n');
    writeStamp(sourceState(root), root);
  }
  return root;
}

const runs = (root: string) =>
  existsSync(join(root, 'build-runs')) ? readFileSync(join(root, 'build-runs'), 'utf8').split('\n').length - 1 : 0;

describe('the state of the sources a build records', () => {
  it('is a hash of every file under src/ and of the build configuration, by path', () => {
    const root = project();
    expect(Object.keys(sourceState(root))).toEqual([
      'package.json',
      'scripts/build.mjs',
      'src/main.ts',
      'src/page/app.js',
      'tsup.config.ts',
    ]);
    expect(readStamp(root)).toEqual(sourceState(root));
  });

  it('makes dist/ fresh when the sources are as recorded', () => {
    expect(buildFreshness(project())).toEqual({ fresh: true });
  });

  it.each<[string, (root: string) => void, string]>([
    [
      'a source changed',
      (root) => writeFileSync(join(root, 'src', 'main.ts'), 'export const answer = 43;\n'),
      'src/main.ts changed since dist/ was built',
    ],
    [
      "the page's files changed",
      (root) => writeFileSync(join(root, 'src', 'page', 'app.js'), 'console.log(2);\n'),
      'src/page/app.js changed',
    ],
    ['a source was added', (root) => writeFileSync(join(root, 'src', 'new.ts'), ''), 'src/new.ts is new since dist/ was built'],
    ['a source was removed', (root) => rmSync(join(root, 'src', 'main.ts')), 'src/main.ts was removed since dist/ was built'],
    ['the build configuration changed', (root) => writeFileSync(join(root, 'tsup.config.ts'), '// minify\n'), 'tsup.config.ts changed'],
    [
      'package.json changed (the version, the dependencies)',
      (root) => writeFileSync(join(root, 'package.json'), '{}\n'),
      'package.json changed',
    ],
    ['the stamp is missing (dist/ built another way)', (root) => rmSync(stampPath(root)), '.build-stamp.json is missing'],
    ['dist/ is missing', (root) => rmSync(join(root, 'dist'), { recursive: true }), 'dist/bin.js does not exist'],
  ])('makes dist/ out of date when %s, and says so', (_name, change, reason) => {
    const root = project();
    change(root);
    const state = buildFreshness(root);
    expect(state.fresh).toBe(false);
    expect(state.fresh === false && state.reason).toContain(reason);
  });

  it('names three changes and counts the rest', () => {
    const root = project();
    for (const name of ['a', 'b', 'c', 'd', 'e']) writeFileSync(join(root, 'src', `${name}.ts`), '');
    expect(buildFreshness(root)).toEqual({
      fresh: false,
      reason: 'src/a.ts is new, src/b.ts is new, src/c.ts is new and 2 more since dist/ was built',
    });
  });
});

describe('ensureBuilt()', () => {
  it('runs no build when dist/ is fresh', () => {
    const root = project();
    ensureBuilt(root);
    expect(runs(root)).toBe(0);
  });

  it('builds when dist/ is missing, once', () => {
    const root = project(goodBuild, false);
    ensureBuilt(root);
    ensureBuilt(root);
    expect(runs(root)).toBe(1);
    expect(buildFreshness(root)).toEqual({ fresh: true });
  });

  it('builds again when a source changed since the build, once', () => {
    const root = project();
    writeFileSync(join(root, 'src', 'main.ts'), 'export const answer = 43;\n');
    ensureBuilt(root);
    ensureBuilt(root);
    expect(runs(root)).toBe(1);
    expect(buildFreshness(root)).toEqual({ fresh: true });
  });

  it('fails naming the reason, the fix and the output of a build that fails', () => {
    const root = project("console.error('src/main.ts(1,1): error TS1005: a semicolon is expected'); process.exit(1);\n");
    writeFileSync(join(root, 'src', 'main.ts'), 'export const answer = ;\n');
    expect(() => ensureBuilt(root)).toThrow(
      /^dist\/ is out of date \(src\/main\.ts changed since dist\/ was built\), and building it again failed \(exit status 1\); fix the build and run npm run build .*\nsrc\/main\.ts\(1,1\): error TS1005/s,
    );
  });

  it('fails when the build leaves dist/ out of date (it wrote no record of its sources)', () => {
    const root = project("import { writeFileSync } from 'node:fs';\nwriteFileSync('dist/bin.js', '// built\\n');\n");
    rmSync(stampPath(root));
    expect(() => ensureBuilt(root)).toThrow(
      /building it again failed \(\.build-stamp\.json is missing: .*\); fix the build and run npm run build/,
    );
  });

  it('takes over the lock of a build whose process is gone', () => {
    const root = project(goodBuild, false);
    const lock = join(root, 'node_modules', '.cache', 'core-build.lock');
    mkdirSync(lock, { recursive: true });
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(lock, 'pid'), gone.stdout);
    ensureBuilt(root);
    expect(runs(root)).toBe(1);
    expect(existsSync(lock)).toBe(false);
  });

  it('leaves the real dist/ fresh: npm run build records the sources it was built from', () => {
    ensureBuilt();
    expect(buildFreshness(repoRoot)).toEqual({ fresh: true });
  });
});
