import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import zlib, { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startRecordingServer } from '../helpers/recording-server.js';
import { baseEnv, binPath, runBuilt, startBuilt } from '../helpers/run.js';

/**
 * The compile cache of src/compile-cache.ts, through the built binary. A cache is only an
 * optimisation: whatever state it is in, a run must print what it prints without one.
 *
 * To see whether a run used a cache file, a test plants one whose code is not core's: V8 accepts a
 * code cache for any source of the same length, so a planted file of the user, private, runs its
 * own code (prints "planted") instead of core's. That is the control; every case below it shows a
 * file that must be passed over, so core's own output comes out.
 */

// core's own cache needs zlib.crc32 (Node 20.15+, 22.2+); without it, Node's own where there is one.
const ownCache = typeof (zlib as { crc32?: unknown }).crc32 === 'function';
const nodeCaches = !ownCache && typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const args = ['reply', '-t', 'Hello', '--core-client-id', '42', '--answer-id', '0b6f1b0e-6a53-4c36-9f65-3d8e2b1e6a00', '--dry-run'];
const expected = /"answerId": "0b6f1b0e-6a53-4c36-9f65-3d8e2b1e6a00"/;

/** What the run prints without a cache (the same for every home: nothing in it is read). */
let reference: { stdout: string; stderr: string } | undefined;
async function withoutCache(): Promise<{ stdout: string; stderr: string }> {
  reference ??= await runBuilt(args, { env: setup({ CORE_NO_COMPILE_CACHE: '1' }).env });
  return reference;
}

/** The run printed exactly what it prints without a cache, and succeeded. */
async function expectPlainRun(result: { code: number; stdout: string; stderr: string }) {
  const plain = await withoutCache();
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(expected);
  expect(result.stdout).toBe(plain.stdout);
  expect(result.stderr).toBe(plain.stderr);
}

function setup(extra: Record<string, string> = {}) {
  const env = baseEnv({ CORE_BASE_URL: 'http://127.0.0.1:9', CORE_TENANT: 'acme', CORE_TOKEN: 'bot-token', ...extra });
  const home = env.HOME!;
  return { env, home, folder: join(home, '.cache', 'core', 'compile') };
}

/** The cache file of dist/main.cjs that a first run wrote. */
function mainCacheFile(folder: string): string {
  const files = readdirSync(folder).filter((name) => name.startsWith('main.cjs-') && name.endsWith('.v8'));
  expect(files).toHaveLength(1);
  return join(folder, files[0]!);
}

/** A cache file as core writes it: magic, CRC-32 of the rest, the run paths it holds, the data. */
function cacheFile(data: Buffer, paths: string[] = ['reply --dry-run']): Buffer {
  const list = Buffer.from(paths.join('\n'));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(list.length, 0);
  const rest = Buffer.concat([length, list, data]);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(0x636f7232, 0);
  header.writeUInt32BE(crc32(rest), 4);
  return Buffer.concat([header, rest]);
}

/** The run paths a cache file says it holds the code of. */
function recordedPaths(file: string): string[] {
  const bytes = readFileSync(file);
  return bytes.toString('utf8', 12, 12 + bytes.readUInt32BE(8)).split('\n');
}

/**
 * V8's code cache for a module of the same length as dist/main.cjs that prints "planted" and exits,
 * compiled with the same wrapper as src/compile-cache.ts, its function body compiled in the cache.
 * Made once for the file: it depends only on dist/main.cjs.
 */
let planted: Buffer | undefined;
function plantedCode(): Buffer {
  planted ??= compilePlanted();
  return planted;
}

function compilePlanted(): Buffer {
  const script = `
    const vm = require('node:vm');
    const length = require('node:fs').readFileSync(${JSON.stringify(join(binPath, '..', 'main.cjs'))}, 'utf8').length;
    const body = "if (globalThis.__making) return; process.stdout.write('planted\\\\n'); process.exit(0);";
    const source = '(function (exports, require, module, __filename, __dirname) { ' + body.padEnd(length, ' ') + '\\n});';
    const compiled = new vm.Script(source);
    globalThis.__making = true;
    compiled.runInThisContext()();
    process.stdout.write(compiled.createCachedData().toString('base64'));
  `;
  return Buffer.from(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }), 'base64');
}

/** Gives each folder under `to` the mode of the same folder under `from`. */
function copyFolderModes(from: string, to: string): void {
  chmodSync(to, statSync(from).mode & 0o7777);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) copyFolderModes(join(from, entry.name), join(to, entry.name));
  }
}

/**
 * A home whose cache holds what a first run wrote. The first run is made once, in a home of its own
 * that no test changes; each test gets a copy of that home's cache, modes and all.
 */
let firstRun: ReturnType<typeof setup> | undefined;
async function firstRunHome() {
  if (firstRun === undefined) {
    const made = setup();
    const first = await runBuilt(args, { env: made.env });
    expect(first.stdout).toMatch(expected);
    firstRun = made;
  }
  const context = setup();
  cpSync(join(firstRun.home, '.cache'), join(context.home, '.cache'), { recursive: true });
  // Node 24's cpSync makes the folders with the umask's mode: each gets the first run's mode back.
  copyFolderModes(join(firstRun.home, '.cache'), join(context.home, '.cache'));
  const file = mainCacheFile(context.folder);
  for (const dir of [join(context.home, '.cache', 'core'), context.folder]) expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  return { ...context, file };
}

/** A home whose cache holds a planted main.cjs cache file (after a first run made the real one). */
async function plantedHome() {
  const context = await firstRunHome();
  writeFileSync(context.file, cacheFile(plantedCode()), { mode: 0o600 });
  return context;
}

// Each Node runs the tests of the cache it uses (scripts/test.mjs runs the suite on 20 and on 24).
if (ownCache)
  describe("core's compile cache (vm.Script and cachedData; Node 20.15+, 22.2+, 24)", () => {
    it('writes the compiled code of the modules a run loaded, as 0600 files in 0700 folders under ~/.cache/core', async () => {
      const { env, home, folder } = setup();
      const result = await runBuilt(args, { env });
      await expectPlainRun(result);
      for (const dir of [join(home, '.cache', 'core'), folder]) expect(statSync(dir).mode & 0o777).toBe(0o700);
      const files = readdirSync(folder);
      expect(files.some((name) => /^main\.cjs-0\.\d+\.\d+.*-node\d+\.\d+\.\d+-v8[\w.-]+-[0-9a-f]{8}-\d+\.v8$/.test(name))).toBe(true);
      for (const name of files) expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
    });

    it('goes into $XDG_CACHE_HOME/core when that is an absolute path, and ignores a relative one', async () => {
      const absolute = setup();
      const xdg = join(absolute.home, 'xdg-cache');
      expect((await runBuilt(args, { env: { ...absolute.env, XDG_CACHE_HOME: xdg } })).stdout).toMatch(expected);
      expect(readdirSync(join(xdg, 'core', 'compile')).length).toBeGreaterThan(0);
      expect(existsSync(join(absolute.home, '.cache'))).toBe(false);

      const relative = setup();
      expect((await runBuilt(args, { env: { ...relative.env, XDG_CACHE_HOME: 'xdg-cache' } })).stdout).toMatch(expected);
      expect(readdirSync(relative.folder).length).toBeGreaterThan(0);
    });

    it("uses a cache file of the user that nobody else can write to (a planted one runs instead of core's code: the control for the tests below)", async () => {
      const { env } = await plantedHome();
      const result = await runBuilt(args, { env });
      expect(result.stdout).toBe('planted\n');
    });

    const damaged: Array<[string, (file: Buffer) => Buffer]> = [
      ['bytes of the compiled code changed (its CRC-32 no longer matches)', (file) => flip(file, Math.floor(file.length / 2))],
      ['bytes of the compiled code changed near its start', (file) => flip(file, 40)],
      ['the checksum changed', (file) => flip(file, 5)],
      ['cut short', (file) => file.subarray(0, Math.floor(file.length / 3))],
      ['empty', () => Buffer.alloc(0)],
      ['not a cache file at all', () => Buffer.from('hello, this is not compiled code\n')],
    ];
    it.each(damaged)('runs as without a cache when the file is %s, and writes a good one in its place', async (_name, damage) => {
      const { env, folder, file } = await firstRunHome();
      const broken = damage(readFileSync(file));
      writeFileSync(file, broken);
      const result = await runBuilt(args, { env });
      await expectPlainRun(result);
      const rewritten = readFileSync(mainCacheFile(folder));
      expect(rewritten.equals(broken)).toBe(false);
      expect(rewritten.readUInt32BE(4)).toBe(crc32(rewritten.subarray(8)));
    });

    it('uses a cache file that holds the code of other paths only, and writes it again with the code of both', async () => {
      const { env, folder } = setup();
      const help = ['reply', '--help'];
      const helpRun = await runBuilt(help, { env });
      expect(helpRun.code).toBe(0);
      const file = mainCacheFile(folder);
      expect(recordedPaths(file)).toEqual(['reply --help']);
      const helpOnly = statSync(file).size;

      await expectPlainRun(await runBuilt(args, { env }));
      expect(recordedPaths(file)).toEqual(['reply --help', 'reply --dry-run']);
      expect(statSync(file).size).toBeGreaterThan(helpOnly);

      // Both paths are in it now, and V8 takes it as it is (a refused file would be written again).
      const written = snapshot(folder);
      for (const argv of [help, args, help, args]) {
        expect((await runBuilt(argv, { env })).code).toBe(0);
        expect(snapshot(folder)).toEqual(written);
      }
    });

    it('uses a cache file that holds other paths only (a planted one, recording another path, runs instead of core)', async () => {
      const { env, file } = await plantedHome();
      writeFileSync(file, cacheFile(plantedCode(), ['config path']), { mode: 0o600 });
      expect((await runBuilt(args, { env })).stdout).toBe('planted\n');
    });

    const foreign: Array<[string, (home: { file: string; folder: string; home: string }) => void]> = [
      ['owned by another user', ({ file }) => chownSync(file, 65534, 65534)],
      ['writable by its group', ({ file }) => chmodSync(file, 0o620)],
      ['writable by others', ({ file }) => chmodSync(file, 0o602)],
      ['in a folder writable by others', ({ folder }) => chmodSync(folder, 0o777)],
      ['in a folder of another user', ({ folder }) => chownSync(folder, 65534, 65534)],
      ['in a cache folder (~/.cache/core) writable by others', ({ home }) => chmodSync(join(home, '.cache', 'core'), 0o777)],
    ];
    it.each(foreign)('passes over a cache file %s', async (_name, make) => {
      const planted = await plantedHome();
      make(planted);
      const result = await runBuilt(args, { env: planted.env });
      await expectPlainRun(result);
    });

    it('passes over a cache file that is a symbolic link, even to a good file of the user', async () => {
      const planted = await plantedHome();
      const elsewhere = join(planted.home, 'elsewhere.v8');
      writeFileSync(elsewhere, readFileSync(planted.file), { mode: 0o600 });
      execFileSync('rm', [planted.file]);
      symlinkSync(elsewhere, planted.file);
      await expectPlainRun(await runBuilt(args, { env: planted.env }));
    });

    it('is not read or written with CORE_NO_COMPILE_CACHE=1', async () => {
      const planted = await plantedHome();
      await expectPlainRun(await runBuilt(args, { env: { ...planted.env, CORE_NO_COMPILE_CACHE: '1' } }));

      const fresh = setup({ CORE_NO_COMPILE_CACHE: '1' });
      expect((await runBuilt(args, { env: fresh.env })).stdout).toMatch(expected);
      expect(existsSync(join(fresh.home, '.cache'))).toBe(false);
    });

    it('runs as without a cache when the folder cannot be made (its parent is a file)', async () => {
      const { env, home } = setup();
      writeFileSync(join(home, 'a-file'), '');
      const result = await runBuilt(args, { env: { ...env, XDG_CACHE_HOME: join(home, 'a-file', 'cache') } });
      await expectPlainRun(result);
    });

    it('runs as without a cache when its folder is not writable', async () => {
      const { env, folder } = setup();
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      chmodSync(folder, 0o500);
      const result = await runBuilt(args, { env, unprivileged: true });
      await expectPlainRun(result);
      expect(readdirSync(folder)).toEqual([]);
    });
  });

if (nodeCaches)
  describe('the compile cache on a Node without zlib.crc32 that has its own (Node 22.1: module.enableCompileCache)', () => {
    it('goes into ~/.cache/core/compile, a 0700 folder', async () => {
      const { env, home, folder } = setup();
      const result = await runBuilt(args, { env });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(expected);
      for (const dir of [join(home, '.cache', 'core'), folder]) expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(readdirSync(folder).length).toBeGreaterThan(0);
    });

    it('is not used with CORE_NO_COMPILE_CACHE=1', async () => {
      const { env, home } = setup({ CORE_NO_COMPILE_CACHE: '1' });
      expect((await runBuilt(args, { env })).stdout).toMatch(expected);
      expect(existsSync(join(home, '.cache'))).toBe(false);
    });

    it('is not used in a folder writable by others', async () => {
      const { env, folder } = setup();
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      chmodSync(folder, 0o777);
      expect((await runBuilt(args, { env })).stdout).toMatch(expected);
      expect(readdirSync(folder)).toEqual([]);
    });

    it('runs as without a cache when the folder cannot be made (its parent is a file)', async () => {
      const { env, home } = setup();
      writeFileSync(join(home, 'a-file'), '');
      const result = await runBuilt(args, { env: { ...env, XDG_CACHE_HOME: join(home, 'a-file', 'cache') } });
      await expectPlainRun(result);
    });
  });

/** Every file under `folder`, with its modification time and content. */
function snapshot(folder: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const path = join(folder, entry);
    const stats = statSync(path);
    if (stats.isFile()) files.set(entry, `${stats.mtimeMs} ${crc32(readFileSync(path))}`);
  }
  return files;
}

describe('the compile cache and a batch, which changes V8 heap settings for its own process (src/heap.ts)', () => {
  it('is written so that later runs use it as it is: no run after the first rewrites a file, batch or single request', async () => {
    const server = await startRecordingServer();
    try {
      const { env, home, folder } = setup({ CORE_BASE_URL: '' });
      const runEnv = { ...env, CORE_BASE_URL: server.url };
      const file = join(home, 'reasons.ndjson');
      writeFileSync(file, '{"code":"A","reasons":[{"locale":"en","name":"A"}]}\n{"code":"B","reasons":[{"locale":"en","name":"B"}]}\n');
      const batch = ['reason', 'update', '-f', file];
      const single = ['reason', 'update', '--code', 'C', '--name', 'en=C'];
      expect((await runBuilt(batch, { env: runEnv })).code).toBe(0);
      const written = snapshot(folder);
      expect(written.size).toBeGreaterThan(0);
      for (const argv of [batch, single, batch, single]) {
        expect((await runBuilt(argv, { env: runEnv })).code).toBe(0);
        expect(snapshot(folder)).toEqual(written);
      }
      expect(server.requests).toHaveLength(2 + 2 + 1 + 2 + 1);
    } finally {
      await server.close();
    }
  });
});

describe('the compile cache and the sandbox, which changes a V8 heap setting for its own process (src/heap.ts)', () => {
  it('is written so that later runs use it as it is: no run after the first two rewrites a file, sandbox or single request', async () => {
    const { env, folder } = setup();
    const sandbox = async () => {
      const run = startBuilt(['sandbox', '--port', '0'], { env });
      await run.printed('stderr', /stop with Ctrl-C/);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
    };
    // The first of each path writes the file with the code of both.
    await sandbox();
    await expectPlainRun(await runBuilt(args, { env }));
    const written = snapshot(folder);
    expect(written.size).toBeGreaterThan(0);
    for (const path of ['sandbox', 'single', 'sandbox', 'single']) {
      if (path === 'sandbox') await sandbox();
      else await expectPlainRun(await runBuilt(args, { env }));
      expect(snapshot(folder)).toEqual(written);
    }
  });
});

function flip(file: Buffer, at: number): Buffer {
  const copy = Buffer.from(file);
  for (let i = at; i < Math.min(copy.length, at + 64); i++) copy[i] = copy[i]! ^ 0x5a;
  return copy;
}
