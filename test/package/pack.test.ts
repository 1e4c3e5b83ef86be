import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pageFiles } from '../../src/sandbox/page.js';
import { binPath, ensureBuilt, repoRoot } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';

/**
 * The package as users get it: `npm pack` of a clean copy of the repository (what git tracks, and no
 * dist/, so `prepack` must build it), then `npm install -g` of the tarball into a private prefix,
 * offline. The bundle in dist/ holds every library core uses, so the package declares no runtime
 * dependencies and installs without the registry. Takes about 10 to 30 seconds.
 */

interface PackedFile {
  path: string;
  size: number;
}
interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: PackedFile[];
}

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  dependencies?: Record<string, string>;
};

let work: string;
let tarball: string;
let packed: PackResult;
let prefix: string;

/** npm, run outside the repository so its .npmrc and node_modules play no part, with a cache of its own. */
function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--cache', join(work, 'npm-cache'), '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: work } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The installed `core`, run as a user runs it: through its bin link, with only what the environment gives. */
function core(args: string[], env: Record<string, string> = {}) {
  return spawnSync(join(prefix, 'bin', 'core'), args, {
    cwd: work,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: work, ...env } as NodeJS.ProcessEnv,
  });
}

/**
 * A clean copy of the repository: the files git tracks (and new ones it does not ignore), as they are
 * now, without dist/; node_modules is linked rather than installed, since only the build needs it.
 */
function cleanCopy(into: string): string {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' });
  const copy = join(into, 'clone');
  for (const path of listed.split('\0').filter((p) => p !== '' && existsSync(join(repoRoot, p)))) {
    mkdirSync(dirname(join(copy, path)), { recursive: true });
    copyFileSync(join(repoRoot, path), join(copy, path));
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'));
  return copy;
}

beforeAll(() => {
  ensureBuilt();
  expect(existsSync(binPath)).toBe(true);
  work = mkdtempSync(join(tmpdir(), 'core-package-'));
  const out = join(work, 'out');
  mkdirSync(out);
  const clone = cleanCopy(work);
  expect(existsSync(join(clone, 'dist'))).toBe(false);
  // prepack's build prints first; npm's JSON report is the last thing on stdout.
  const printed = npm(['pack', clone, '--pack-destination', out, '--json'], work);
  const result = JSON.parse(printed.slice(printed.search(/^\[/m))) as PackResult[];
  packed = result[0]!;
  tarball = join(out, packed.filename);
  prefix = join(work, 'prefix');
  npm(['install', '--global', '--prefix', prefix, '--offline', tarball], work);
}, 120_000);

describe('the npm package', () => {
  it("holds the bundle (with its on-demand vendor modules and the sandbox's page), the README, the changelog, the license, the package.json, the JSON Schemas and the man page, and nothing else", () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toContain('dist/bin.js');
    for (const name of Object.keys(pageFiles)) expect(paths).toContain(`dist/page/${name}`);
    expect(paths).toContain('README.md');
    expect(paths).toContain('CHANGELOG.md');
    expect(paths).toContain('docs/man/core.1');
    expect(paths).toContain('package.json');
    for (const kind of ['reply', 'greet', 'reason', 'config']) expect(paths).toContain(`docs/schemas/${kind}.schema.json`);
    const unexpected = paths.filter(
      (path) =>
        !/^dist\/(bin\.js|package\.json|main\.cjs|vendor\/[\w.-]+\.cjs)$/.test(path) &&
        !(path.startsWith('dist/page/') && path.slice('dist/page/'.length) in pageFiles) &&
        !/^docs\/schemas\/\w+\.schema\.json$/.test(path) &&
        !['README.md', 'CHANGELOG.md', 'package.json', 'LICENSE', 'docs/man/core.1'].includes(path),
    );
    expect(unexpected).toEqual([]);
    expect(paths.filter((path) => path.endsWith('.map') || path.startsWith('src/') || path.startsWith('test/'))).toEqual([]);
  });

  it('names its repository, home page and bug tracker, so the README\'s links and the "report it" hint lead somewhere', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\//) });
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\/.*\/issues$/) });
    expect((manifest.keywords as string[]).length).toBeGreaterThan(0);
  });

  it('ships the editor prompt without encoding tables', () => {
    const editor = packed.files.find((file) => file.path === 'dist/vendor/inquirer-editor.cjs');
    expect(editor).toBeDefined();
    // With iconv-lite's tables it was 540 KB; Node's own decoder stands in for them.
    expect(editor!.size).toBeLessThan(100_000);
  });

  it('declares no runtime dependency, since the bundle holds them all', () => {
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it('is a tarball of reasonable size', () => {
    expect(statSync(tarball).size).toBe(packed.size);
    // Everything core uses is in it; a jump far past this means something unintended was bundled or shipped.
    expect(packed.size).toBeLessThan(1_000_000);
    console.info(
      `npm pack: ${packed.filename}, ${packed.size} bytes packed, ${packed.unpackedSize} bytes unpacked, ${packed.files.length} files`,
    );
  });

  it('installs offline with nothing beside itself', () => {
    const installed = join(prefix, 'lib', 'node_modules', 'core-cli');
    expect(existsSync(join(installed, 'dist', 'bin.js'))).toBe(true);
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
  });

  it('installs the man page where man finds it', () => {
    const linked = join(prefix, 'share', 'man', 'man1', 'core.1');
    expect(existsSync(linked)).toBe(true);
    expect(readFileSync(linked, 'utf8')).toMatch(/^\.TH CORE 1 /m);
  });

  it('runs core --version from the install', () => {
    const result = core(['--version']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${pkg.version}\n`);
  });

  it('runs core reply --dry-run from the install, checking the payload and masking the token', () => {
    const result = core(['reply', '--core-client-id', '9223372036854775807', '-t', 'Hello from the package', '--dry-run', '--json'], {
      CORE_BASE_URL: 'https://chat.example.com',
      CORE_TENANT: 'acme',
      CORE_TOKEN: 'package-test-token-5d1e',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain('package-test-token-5d1e');
    const document = JSON.parse(result.stdout.replace(/9223372036854775807/, '"9223372036854775807"')) as {
      dryRun: boolean;
      url: string;
      body: Record<string, unknown>;
    };
    expect(document).toMatchObject({ dryRun: true, url: 'https://chat.example.com/api/v1/chatbot' });
    expect(document.body).toMatchObject({ text: 'Hello from the package', coreClientId: '9223372036854775807' });
  });

  it('refuses an invalid payload from the install with exit 2', () => {
    const result = core(['reply', '--core-client-id', '1', '--dry-run'], {
      CORE_BASE_URL: 'https://chat.example.com',
      CORE_TENANT: 'acme',
      CORE_TOKEN: 'package-test-token-5d1e',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('text');
  });

  it("serves the sandbox's page from the install: the HTML, its scripts and its style sheet", async () => {
    const child = spawn(join(prefix, 'bin', 'core'), ['sandbox', '--port', '0'], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: work } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const started = new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const url = /^export CORE_BASE_URL=(\S+)$/m.exec(out)?.[1];
          if (url) resolve(url);
        });
        child.once('exit', (code) => reject(new Error(`core sandbox exited ${code}: ${out}`)));
      });
      const url = await happens(started, 'the installed core sandbox to start');
      for (const [name, type] of Object.entries(pageFiles)) {
        const response = await fetch(`${url}${name === 'index.html' ? '/' : `/_sandbox/page/${name}`}`);
        expect(response.status, name).toBe(200);
        expect(response.headers.get('content-type'), name).toBe(type);
        expect(await response.text(), name).toBe(readFileSync(join(repoRoot, 'src', 'sandbox', 'page', name), 'utf8'));
      }
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('prints the schemas and a completion script from the install', () => {
    const schema = core(['schema', 'reply']);
    expect(schema.status).toBe(0);
    const installed = join(prefix, 'lib', 'node_modules', 'core-cli', 'docs', 'schemas', 'reply.schema.json');
    expect(schema.stdout).toBe(readFileSync(installed, 'utf8'));
    const completion = core(['completion', 'bash']);
    expect(completion.status).toBe(0);
    expect(completion.stdout).toContain('complete -F _core_completion core');
  });
});
