import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pageFiles } from '../../src/sandbox/page.js';
import { CHECK_IDS } from '../../src/testing/check-bot/ids.js';
import { describeOnce } from '../helpers/node24.js';
import { freePort, startProcess, stopProcesses } from '../helpers/processes.js';
import { binPath, ensureBuilt, repoRoot } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';
import { hangLimit } from '../helpers/time-scale.js';
import { happens } from '../helpers/wait.js';

/**
 * The package as users get it: `npm pack` of a clean copy of the repository (what git tracks, and no
 * dist/, so `prepack` must build it), then `npm install -g` of the tarball into a private prefix,
 * offline, and `npm install` of it into an empty project, as a bot's test suite installs
 * `core-cli/sandbox`. The bundle in dist/ holds every library core uses, so the package declares no
 * runtime dependencies and installs without the registry. Takes about 20 to 60 seconds.
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
/** An empty project with the tarball installed as a dependency: where a bot's tests import core-cli/sandbox. */
let project: string;

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
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'a-bot', private: true, type: 'module' }, null, 2)}\n`);
  npm(['install', '--offline', '--save-dev', tarball], project);
}, hangLimit(180_000));

describe('the npm package', () => {
  it("holds the bundle (with its on-demand vendor modules, the sandbox's page and core-cli/sandbox), the README, the changelog, the license, the security policy, the package.json, the example config, the guides, the command reference, the examples, the JSON Schemas, the OpenAPI document and the man page, and nothing else", () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toContain('dist/bin.js');
    for (const name of Object.keys(pageFiles)) expect(paths).toContain(`dist/page/${name}`);
    for (const path of [
      'dist/sandbox.mjs',
      'dist/sandbox.d.mts',
      '.corerc.example',
      'docs/sandbox.md',
      'docs/examples/bot/bot.mjs',
      'docs/examples/bot/bot.py',
      'docs/examples/bot/bot.ts',
      'docs/sandbox-page.png',
    ]) {
      expect(paths).toContain(path);
    }
    expect(paths).toContain('README.md');
    expect(paths).toContain('CHANGELOG.md');
    expect(paths).toContain('SECURITY.md');
    expect(paths).toContain('docs/man/core.1');
    expect(paths).toContain('package.json');
    for (const kind of ['reply', 'greet', 'reason', 'config']) expect(paths).toContain(`docs/schemas/${kind}.schema.json`);
    const unexpected = paths.filter(
      (path) =>
        !/^dist\/(bin\.js|package\.json|main\.cjs|sandbox\.mjs|sandbox\.cjs|sandbox\.d\.mts|sandbox\.d\.cts|vendor\/[\w.-]+\.cjs)$/.test(
          path,
        ) &&
        !(path.startsWith('dist/page/') && path.slice('dist/page/'.length) in pageFiles) &&
        !/^docs\/schemas\/\w+\.schema\.json$/.test(path) &&
        !/^docs\/[\w-]+\.md$/.test(path) &&
        !/^docs\/commands\/[\w-]+\.md$/.test(path) &&
        !/^docs\/examples\/[\w./-]+\.(json|yaml|ndjson|md|mjs|py|ts)$/.test(path) &&
        ![
          'README.md',
          'CHANGELOG.md',
          'SECURITY.md',
          'package.json',
          'LICENSE',
          '.corerc.example',
          'docs/man/core.1',
          'docs/openapi.json',
          'docs/sandbox-page.png',
        ].includes(path),
    );
    expect(unexpected).toEqual([]);
    expect(paths.filter((path) => path.endsWith('.map') || path.startsWith('src/') || path.startsWith('test/'))).toEqual([]);
    // The one picture: the page's, which the README and docs/sandbox.md show.
    expect(paths.filter((path) => path.endsWith('.png'))).toEqual(['docs/sandbox-page.png']);
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
    // Everything core uses is in it, and the page's screenshot (330 KB of PNG, which does not compress),
    // and the MCP SDK's two bundles that only `core mcp` loads (about 250 KB packed); a jump far past
    // this means something unintended was bundled or shipped.
    expect(packed.size).toBeLessThan(1_800_000);
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

  it("starts the installed core sandbox with --env-file FILE, a file that does not exist yet, which Node's own --env-file would refuse", async () => {
    const envFile = join(work, 'bot.env');
    rmSync(envFile, { force: true });
    const child = spawn(join(prefix, 'bin', 'core'), ['sandbox', '--port', '0', '--env-file', envFile], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: work } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const started = new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const url = /^export CORE_BASE_URL=(\S+)$/m.exec(out)?.[1];
          if (url) resolve(url);
        });
        child.once('exit', (code) => reject(new Error(`core sandbox exited ${code}: ${out}${err}`)));
      });
      const url = await happens(started, 'the installed core sandbox to start');
      expect(readFileSync(envFile, 'utf8')).toContain(`CORE_BASE_URL=${url}\n`);
      expect(statSync(envFile).mode & 0o777).toBe(0o600);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it("ends Node's own options in the bin's first line, and npm's Windows shims keep that end", () => {
    const bin = join(prefix, 'lib', 'node_modules', 'core-cli', 'dist', 'bin.js');
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env -S node --');
    // The cmd-shim of the npm that installed the package: what `npm install` runs on Windows.
    const npmCli = realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
    const require = createRequire(npmCli);
    const cmdShim = require('cmd-shim') as (from: string, to: string) => Promise<void>;
    const shims = join(work, 'shims');
    mkdirSync(shims, { recursive: true });
    return cmdShim(bin, join(shims, 'core')).then(() => {
      // The .cmd and .ps1 shims run node with `--` between Node's options and the script.
      expect(readFileSync(join(shims, 'core.cmd'), 'utf8')).toMatch(/"%_prog%" -- +"%dp0%\\[^"]*bin\.js" %\*/);
      expect(readFileSync(join(shims, 'core.ps1'), 'utf8')).toMatch(/& "\$basedir\/node\$exe" -- +"\$basedir\/[^"]*bin\.js" \$args/);
      // The shell shim for Cygwin and Git Bash does the same.
      expect(readFileSync(join(shims, 'core'), 'utf8')).toMatch(/exec node -- +"\$basedir\/[^"]*bin\.js" "\$@"/);
      // Run, it reaches core, which answers for the missing folder itself (exit 2), where Node would have stopped with 9.
      const run = spawnSync('sh', [join(shims, 'core'), 'sandbox', '--env-file', join(work, 'no-such-folder', '.env')], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: work } as NodeJS.ProcessEnv,
      });
      expect(run.stderr).not.toMatch(/^node:/m);
      expect(run.status, run.stderr).toBe(2);
    });
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

/**
 * A path that help, a hint, the man page or the README names, relative to the package: docs/...,
 * .corerc.example, SECURITY.md and the like. A path inside a URL (after a `/`) is the URL's, and the
 * bundler's own module keys (`__esm({"src/x.ts"(){...}})`) are not text anyone reads.
 */
const namedPath =
  /(?<![\w/.:@-])((?:docs|src|test|scripts|bench|dist)\/[\w./-]*[\w/]|\.corerc\.example|[A-Z][A-Z_]*\.md)(?![\w/-]|\.\w|"\()/g;

function namedPaths(text: string): string[] {
  return [...text.matchAll(namedPath)].map((match) => match[1]!);
}

/** The text of a man page as it reads: without roff's comments, its escaped hyphens and font changes undone. */
function manText(roff: string): string {
  return roff
    .split('\n')
    .filter((line) => !line.startsWith('.\\"'))
    .join('\n')
    .replace(/\\-/g, '-')
    .replace(/\\f[BIRP]/g, '');
}

/** `core ... --help` of the installed binary for every command and subcommand, by command line. */
let helps: Map<string, string> | undefined;
function everyHelp(): Map<string, string> {
  if (helps) return helps;
  helps = new Map<string, string>();
  const visit = (path: string[]) => {
    const result = core([...path, '--help']);
    expect(result.status, `core ${path.join(' ')} --help`).toBe(0);
    helps!.set(['core', ...path].join(' '), result.stdout);
    const commands = /^Commands:\n([\s\S]*?)(?:\n\n|\n?(?![\s\S]))/m.exec(result.stdout)?.[1] ?? '';
    for (const [, name] of commands.matchAll(/^ {2}(\S+)/gm)) if (name !== 'help') visit([...path, name!]);
  };
  visit([]);
  return helps;
}

// Once: text the installed core prints, read for the paths it names.
describeOnce('what help, hints, the man page and the README name', () => {
  const installed = () => join(project, 'node_modules', 'core-cli');
  /** Whether the packed tarball holds `path`: a file, or a folder (a path ending in /, or one some file is under). */
  const shipped = (path: string) => {
    const paths = packed.files.map((file) => file.path);
    const bare = path.replace(/\/$/, '');
    return (!path.endsWith('/') && paths.includes(bare)) || paths.some((file) => file.startsWith(`${bare}/`));
  };

  it('walks the help of every command and subcommand of the installed core', () => {
    const helps = everyHelp();
    for (const command of [
      'core',
      'core reason update',
      'core customer say',
      'core customer press',
      'core config show',
      'core test',
      'core sandbox',
    ]) {
      expect([...helps.keys()]).toContain(command);
    }
  });

  it('ships every path that a help names, at the path named', () => {
    const missing = [...everyHelp()].flatMap(([command, text]) =>
      namedPaths(text)
        .filter((path) => !shipped(path))
        .map((path) => `${command}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it("ships every path that the installed code names in a hint, a warning or an error (every string of core's bundles)", () => {
    const dist = join(installed(), 'dist');
    const bundles = [
      ...readdirSync(dist).filter((name) => /\.(c|m)?js$/.test(name)),
      ...readdirSync(join(dist, 'vendor')).map((name) => `vendor/${name}`),
    ];
    expect(bundles).toEqual(expect.arrayContaining(['bin.js', 'main.cjs', 'sandbox.mjs']));
    const named = new Map<string, string>();
    for (const bundle of bundles) for (const path of namedPaths(readFileSync(join(dist, bundle), 'utf8'))) named.set(path, bundle);
    // The hints that name guides are there to be found: the walk does find what it checks.
    expect([...named.keys()]).toEqual(expect.arrayContaining(['docs/sandbox.md', 'docs/configuration.md', 'docs/examples/bot/']));
    expect([...named].filter(([path]) => !shipped(path)).map(([path, bundle]) => `${bundle}: ${path}`)).toEqual([]);
  });

  it('ships every path that the installed man page names', () => {
    const page = manText(readFileSync(join(prefix, 'share', 'man', 'man1', 'core.1'), 'utf8'));
    const paths = namedPaths(page);
    expect(paths).toEqual(expect.arrayContaining(['docs/examples/bot/', 'docs/testing-bots.md', 'SECURITY.md']));
    expect(paths.filter((path) => !shipped(path))).toEqual([]);
  });

  it('ships every file that the README links to or names; what it does not ship it names by absolute URL', () => {
    // A link to an absolute URL names what it links to there, whatever its text says ([CONTRIBUTING.md](https://...)).
    const readme = readFileSync(join(installed(), 'README.md'), 'utf8').replace(/\[[^\]]*\]\([a-z][a-z+.-]*:[^)\s]*\)/gi, '');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    const relative = links.filter((link) => !/^[a-z][a-z+.-]*:/i.test(link)).map((link) => link.replace(/#.*$/, ''));
    expect(relative.length).toBeGreaterThan(10);
    const named = [...relative.filter((link) => link !== ''), ...namedPaths(readme)];
    expect(named.filter((path) => !shipped(path))).toEqual([]);
  });

  it('states every default of the installed man page once', () => {
    const page = readFileSync(join(prefix, 'share', 'man', 'man1', 'core.1'), 'utf8');
    const twice = page.split(/^\.TP$/m).filter((paragraph) => (paragraph.match(/\(default\b/g) ?? []).length > 1);
    expect(twice).toEqual([]);
  });
});

describe('core-cli/sandbox from the installed package', () => {
  /** Runs a script of the consumer project with Node, from the project's folder. */
  const runScript = (name: string, text: string) => {
    writeFileSync(join(project, name), text);
    return spawnSync(process.execPath, [name], {
      cwd: project,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: work } as NodeJS.ProcessEnv,
    });
  };

  it('declares the entry as an ES module and as CommonJS, each with its types, beside the bin', () => {
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'core-cli', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.exports).toEqual({
      './sandbox': {
        import: { types: './dist/sandbox.d.mts', default: './dist/sandbox.mjs' },
        require: { types: './dist/sandbox.d.cts', default: './dist/sandbox.cjs' },
      },
      './package.json': './package.json',
    });
    expect(manifest.bin).toEqual({ core: 'dist/bin.js' });
  });

  it("leaves the command line's bundles as they were: bin.js and main.cjs name no module of the library", () => {
    for (const file of ['bin.js', 'main.cjs']) {
      const text = readFileSync(join(project, 'node_modules', 'core-cli', 'dist', file), 'utf8');
      expect(text, file).not.toMatch(/sandbox\.c?mjs|sandbox\.cjs|library[\\/]/);
    }
  });

  it("starts a sandbox with a bot from a project's test script, and plays the customer: say, press, the hand-over", () => {
    const result = runScript(
      'consumer.mjs',
      `import { createServer } from 'node:http';
import { startConversation, startSandbox, SandboxOptionsError } from 'core-cli/sandbox';

let sandbox;
const bot = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', async () => {
    // The questionId is a long: kept as written, never through a JavaScript number.
    const questionId = /"questionId":\\s*(\\d+)/.exec(body)[1];
    const text = JSON.parse(body).message.text;
    const answer = /person/.test(text)
      ? \`{"questionId": \${questionId}, "text": "Passing you to a person.", "code": "SWITCH_TO_HUMAN"}\`
      : \`{"questionId": \${questionId}, "text": "You said: \${text}", "quickReplies": [{"type": "TEXT", "text": "Talk to a person"}]}\`;
    const response = await fetch(\`\${sandbox.url}/api/v1/chatbot\`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'sandbox' },
      body: answer,
    });
    res.writeHead(response.ok ? 200 : 503).end();
  });
});
await new Promise((resolve) => bot.listen(0, '127.0.0.1', resolve));
sandbox = await startSandbox({ botUrl: \`http://127.0.0.1:\${bot.address().port}/webhook\` });
let refused;
try {
  await startSandbox({ duplicates: 'sometimes' });
} catch (error) {
  refused = { isOptionsError: error instanceof SandboxOptionsError, problems: error.problems };
}
const conversation = await startConversation(sandbox, { channel: 'IM' });
const said = await conversation.say('Where is my order?', { waitMs: 60000 });
const pressed = await conversation.press('Talk to a person', { waitMs: 60000 });
const owner = sandbox.conversation(conversation.sessionId).owner;
await sandbox.close();
bot.close();
console.log(JSON.stringify({ refused, said: { ok: said.ok, texts: said.texts }, pressed: { ok: pressed.ok, texts: pressed.texts, handovers: pressed.handovers.map((h) => h.code) }, owner }));
`,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      refused: { isOptionsError: true, problems: [{ path: 'duplicates', message: expect.stringMatching(/strict|soft/) }] },
      said: { ok: true, texts: ['You said: Where is my order?'] },
      pressed: { ok: true, texts: ['Passing you to a person.'], handovers: ['SWITCH_TO_HUMAN'] },
      owner: 'agents',
    });
  });

  it('is required from CommonJS, as a jest suite without ES modules loads it: the sandbox, its page, the customer, settleMs, the typed answer', () => {
    // What jest gives a test file, reduced to what runs here: describe, it, the hooks, expect by hand.
    const result = runScript(
      // Not named *.test.cjs: the project's vitest run, below, would take it for one of its own.
      'consumer-suite.cjs',
      `const assert = require('node:assert/strict');
const { createServer } = require('node:http');
const { startConversation, startSandbox, SandboxOptionsError } = require('core-cli/sandbox');

const tests = [];
const hooks = { beforeAll: [], afterAll: [] };
const it = (name, fn) => tests.push([name, fn]);
const beforeAll = (fn) => hooks.beforeAll.push(fn);
const afterAll = (fn) => hooks.afterAll.push(fn);

let sandbox;
let bot;
beforeAll(async () => {
  // The bot answers twice, 200 ms apart: the default settle (300 ms) takes both, settleMs: 50 only the first.
  bot = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const questionId = /"questionId":\\s*(\\d+)/.exec(body)[1];
      const post = (text) =>
        fetch(\`\${sandbox.url}/api/v1/chatbot\`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'sandbox' },
          body: \`{"questionId": \${questionId}, "answerId": "\${text}-\${questionId}", "text": "\${text}", "quickReplies": [{"type": "TEXT", "text": "More"}]}\`,
        });
      await post('first');
      res.writeHead(200).end();
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The sandbox may be closed by then, when the last test took only the first answer.
      await post('second').catch(() => undefined);
    });
  });
  await new Promise((resolve) => bot.listen(0, '127.0.0.1', resolve));
  sandbox = await startSandbox({ botUrl: \`http://127.0.0.1:\${bot.address().port}/webhook\` });
});
afterAll(async () => {
  await sandbox.close();
  bot.close();
});

it('starts, serves its page, and types an answer as the reply it is', async () => {
  assert.equal((await fetch(\`\${sandbox.url}/\`)).status, 200);
  const conversation = await startConversation(sandbox);
  const exchange = await conversation.say('Hi', { waitMs: 60000 });
  assert.deepEqual(exchange.texts, ['first', 'second']);
  assert.deepEqual(exchange.answers[0].body.quickReplies, [{ type: 'TEXT', text: 'More' }]);
  assert.equal(typeof exchange.answers[0].body.questionId, 'bigint');
  assert.deepEqual(exchange.answers[0].addressedBy, ['questionId']);
});

it('ends the wait sooner with a shorter settleMs', async () => {
  const conversation = await startConversation(sandbox);
  const exchange = await conversation.say('Hi', { waitMs: 60000, settleMs: 50 });
  assert.deepEqual(exchange.texts, ['first']);
  await assert.rejects(conversation.say('Hi', { settleMs: -1 }), /settleMs: -1 is not a number of milliseconds/);
});

it('throws SandboxOptionsError, the same class from require', async () => {
  await assert.rejects(startSandbox({ duplicates: 'sometimes' }), (error) => error instanceof SandboxOptionsError);
});

(async () => {
  for (const hook of hooks.beforeAll) await hook();
  let failed = 0;
  for (const [name, fn] of tests) {
    try {
      await fn();
      console.log('ok', name);
    } catch (error) {
      failed += 1;
      console.log('not ok', name, error);
    }
  }
  for (const hook of hooks.afterAll) await hook();
  process.exitCode = failed;
})();
`,
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n').filter((line) => line !== '')).toEqual([
      'ok starts, serves its page, and types an answer as the reply it is',
      'ok ends the wait sooner with a shorter settleMs',
      'ok throws SandboxOptionsError, the same class from require',
    ]);
    expect(result.status).toBe(0);
  });

  // Once: what tsc makes of the declarations; no code of core runs.
  describeOnce('its declarations, compiled against in strict TypeScript with moduleResolution nodenext', () => {
    /** The consumer files and what tsc says of each: one run of the compiler for all of them. */
    const typed = `import { startConversation, startSandbox, SandboxCustomerError, type AddressedBy, type CustomerExchange, type ExchangeAnswer, type ReplyBody, type Sandbox, type SandboxEvent, type SandboxOptions } from 'core-cli/sandbox';

const options: SandboxOptions = { duplicates: 'strict', tenants: ['acme'], latencyMs: 0, fail: { status: 503, rate: 0.5 }, webhookBackoffMs: 0 };
const sandbox: Sandbox = await startSandbox(options);
const url: string = sandbox.url;
const seen: SandboxEvent[] = [];
const stop: () => void = sandbox.subscribe((event) => {
  if (event.type === 'bot.answer') seen.push(event);
});
const conversation = await startConversation(sandbox, { tenant: 'acme', channel: 'email', coreClientId: 1n });
const channel: 'WEB' | 'IM' | 'EMAIL' = conversation.channel;
const exchange: CustomerExchange = await conversation.say('Hi', { waitMs: 100 });
const delivered: boolean | undefined = exchange.answers[0]?.delivered;
const index: bigint = exchange.question.questionIndex;
const owner: 'bot' | 'agents' | undefined = sandbox.conversation(conversation.sessionId)?.owner;
const reasons: string[] = sandbox.reasons('acme').map((record) => record.reason.code);
const reset: string[] = sandbox.reset();
const failure: number | undefined = new SandboxCustomerError(404, 'x', 'y').status;
// An answer's body is the reply it is, identifiers as bigint; addressedBy the ways it was addressed.
const answer: ExchangeAnswer | undefined = exchange.answers[0];
const body: ReplyBody | undefined = answer?.body;
const button: string | undefined = answer?.body.quickReplies?.[0]?.text;
const question: bigint | undefined = answer?.body.questionId;
const code: 'UNCLEAR_QUESTION' | 'SWITCH_TO_HUMAN' | 'SUCCESS' | undefined = answer?.body.code;
const by: AddressedBy[] | undefined = answer?.addressedBy;
const settled: CustomerExchange = await conversation.say('Hi', { waitMs: 100, settleMs: 1000 });
stop();
await sandbox.close();
export { url, delivered, index, owner, reasons, reset, failure, channel, body, button, question, code, by, settled };
`;
    /** The same from a CommonJS module of a TypeScript project: `require` finds the declarations of dist/sandbox.cjs. */
    const typedCommonJs = `import { startConversation, startSandbox, type ExchangeAnswer } from 'core-cli/sandbox';
async function main(): Promise<string | undefined> {
  const sandbox = await startSandbox();
  const exchange = await (await startConversation(sandbox)).say('Hi', { waitMs: 100, settleMs: 0 });
  const first: ExchangeAnswer | undefined = exchange.answers[0];
  await sandbox.close();
  return first?.body.text;
}
export = main;
`;
    const refusals: Array<[string, string, RegExp]> = [
      [
        "duplicates: 'sometimes'",
        "await startSandbox({ duplicates: 'sometimes' });",
        /error TS2322: Type '"sometimes"' is not assignable to type 'DuplicateMode/,
      ],
      [
        "channel: 'SMS'",
        "await startConversation(await startSandbox(), { channel: 'SMS' });",
        /error TS2322: Type '"SMS"' is not assignable to type 'Channel/,
      ],
      ['an option that does not exist', "await startSandbox({ duplicate: 'soft' });", /error TS(2561|2353)/],
      ['an event type that does not exist', "(await startSandbox()).subscribe((event) => event.type === 'bot.reply');", /error TS2367/],
      [
        "a field a bot answer's body does not have",
        "(await (await startConversation(await startSandbox())).say('Hi')).answers[0]?.body.quickReply;",
        /error TS(2339|2551): Property 'quickReply' does not exist on type 'ReplyBody'/,
      ],
      [
        'a way of addressing that does not exist',
        "(await (await startConversation(await startSandbox())).say('Hi')).answers[0]?.addressedBy.includes('sessionId');",
        /error TS2345: Argument of type '"sessionId"' is not assignable to parameter of type/,
      ],
      [
        'a settleMs given as a string',
        "await (await startConversation(await startSandbox())).say('Hi', { settleMs: '300' });",
        /error TS2322/,
      ],
      [
        'a coreClientId given as a number',
        'await startConversation(await startSandbox(), { coreClientId: 1 });',
        /error TS2322: Type 'number' is not assignable to type 'bigint'/,
      ],
    ];
    const fileOf = (what: string) => `refused-${what.replace(/\W+/g, '-').replace(/-$/, '').toLowerCase()}.ts`;
    let output: string;
    let status: number | null;

    beforeAll(() => {
      const folder = join(project, 'typed');
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'typed.ts'), typed);
      writeFileSync(join(folder, 'typed-commonjs.cts'), typedCommonJs);
      for (const [what, line] of refusals) {
        writeFileSync(
          join(folder, fileOf(what)),
          `import { startConversation, startSandbox } from 'core-cli/sandbox';\nvoid startConversation;\n${line}\nexport {};\n`,
        );
      }
      writeFileSync(
        join(folder, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2022', 'dom'],
            // No @types at all, and the package's declarations checked too: they must stand alone.
            types: [],
            noEmit: true,
            skipLibCheck: false,
            exactOptionalPropertyTypes: true,
            noUncheckedIndexedAccess: true,
          },
          files: ['typed.ts', 'typed-commonjs.cts', ...refusals.map(([what]) => fileOf(what))],
        }),
      );
      const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      const result = spawnSync(process.execPath, [tsc, '-p', folder, '--pretty', 'false'], { cwd: folder, encoding: 'utf8' });
      output = result.stdout;
      status = result.status;
    }, hangLimit(120_000));

    const errorsOf = (file: string) => output.split('\n').filter((line) => line.startsWith(`${file}(`));

    it('type-checks a test that uses the handle, the options, the events and the customer, and the declarations themselves', () => {
      expect(output).not.toMatch(/node_modules\/core-cli/);
      expect(errorsOf('typed.ts')).toEqual([]);
      expect(errorsOf('typed-commonjs.cts')).toEqual([]);
      // The refusals below fail the run; nothing else does.
      expect(status).toBe(2);
      expect(output.split('\n').filter((line) => line !== '' && !/^refused-/.test(line))).toEqual([]);
    });

    it.each(refusals)('refuses %s', (what, _line, error) => {
      const errors = errorsOf(fileOf(what));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(error);
    });
  });
});

describe("the installed core sandbox's output", () => {
  it('prints only lines a POSIX shell sources, and core customer goes on with --session last', async () => {
    const child = spawn(join(prefix, 'bin', 'core'), ['sandbox', '--port', '0'], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: work } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const printed = new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (/^export CORE_WEBHOOK_SECRET=\S+$/m.test(out)) resolve(out);
        });
        child.once('exit', (code) => reject(new Error(`core sandbox exited ${code}: ${out}`)));
      });
      const stdout = await happens(printed, 'the installed core sandbox to print its export lines');
      const exports = stdout.split('\n').filter((line) => line.startsWith('export '));
      expect(exports.map((line) => /^export (\w+)=/.exec(line)?.[1])).toEqual([
        'CORE_BASE_URL',
        'CORE_TENANT',
        'CORE_TOKEN',
        'CORE_WEBHOOK_SECRET',
      ]);
      // The whole of stdout, not only its export lines: every line is one a shell can source.
      const file = join(work, 'sandbox.out');
      writeFileSync(file, stdout);
      const sourced = spawnSync('sh', ['-c', `. "${file}"\nprintf '%s %s %s' "$CORE_BASE_URL" "$CORE_TENANT" "$CORE_TOKEN"`], {
        encoding: 'utf8',
      });
      expect(sourced.stderr).toBe('');
      expect(sourced.status).toBe(0);
      expect(sourced.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+ sandbox sandbox-token$/);

      // `say` starts a conversation and remembers it per base URL; `press --session last` goes on in it.
      // No bot is connected, so neither gets an answer: what is checked is the conversation they name.
      const env = { CORE_BASE_URL: sourced.stdout.split(' ')[0]!, XDG_STATE_HOME: join(work, 'state') };
      const said = core(['customer', 'say', 'Hello', '--json', '--wait', '1s'], env);
      const sessionId = (JSON.parse(said.stdout) as { sessionId?: string }).sessionId;
      expect(sessionId).toMatch(/^s-/);
      const pressed = core(['customer', 'press', 'Yes', '--session', 'last', '--json', '--wait', '1s'], env);
      expect((JSON.parse(pressed.stdout) as { sessionId?: string }).sessionId).toBe(sessionId);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});

// Once: test/e2e/example-bot.test.ts and test/e2e/core-test.test.ts run the example bot against core on Node 24.
describeOnce('the example bots, as the installed core prints them', () => {
  afterEach(() => stopProcesses());

  /** A folder of the user's, where they write the bot core prints. */
  const folder = () => mkdtempSync(join(work, 'example-bot-'));

  /**
   * Starts the bot (`command` in `cwd`) as its first lines say, pointed at the sandbox that the
   * installed `core check-bot` then starts on a port of its own, and grades it: every check passes.
   */
  async function grade(command: string, args: string[], cwd: string) {
    const [sandboxPort, botPort] = [await freePort(), await freePort()];
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const bot = startProcess(
      command,
      args,
      {
        PATH: process.env.PATH,
        HOME: work,
        CORE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
        CORE_TENANT: 'sandbox',
        CORE_TOKEN: 'sandbox-token',
        CORE_WEBHOOK_SECRET: secret,
        PORT: String(botPort),
      },
      /bot listening on/,
    );
    await bot.started;
    const result = spawnSync(
      join(prefix, 'bin', 'core'),
      [
        'check-bot',
        '--port',
        String(sandboxPort),
        '--bot-url',
        `http://127.0.0.1:${botPort}/webhook`,
        '--timeout',
        '3s',
        '--reporter',
        'json',
      ],
      { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: work, CORE_SANDBOX_WEBHOOK_SECRET: secret } as NodeJS.ProcessEnv },
    );
    const report = JSON.parse(result.stdout) as { checks: { id: string; status: string; message: string }[] };
    expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);
    expect(report.checks.map((check) => check.id)).toEqual(CHECK_IDS);
    expect(result.status).toBe(0);
  }

  /** `core example bot ARGS > FILE` in `cwd`: what the bot's file holds is what core printed. */
  function print(args: string[], cwd: string, file: string) {
    const printed = core(['example', 'bot', ...args]);
    expect(printed.stderr).toBe('');
    expect(printed.status).toBe(0);
    writeFileSync(join(cwd, file), printed.stdout);
    return printed.stdout;
  }

  it('core example bot > bot.mjs && node bot.mjs passes every check', async () => {
    const cwd = folder();
    print([], cwd, 'bot.mjs');
    await grade(process.execPath, [join(cwd, 'bot.mjs')], cwd);
  });

  withTool('python3').it('core example bot --lang python > bot.py && python3 bot.py passes every check', async () => {
    const cwd = folder();
    print(['--lang', 'python'], cwd, 'bot.py');
    await grade('python3', [join(cwd, 'bot.py')], cwd);
  });

  it('core example bot --lang typescript > bot.ts compiles with tsc --strict as its first lines say, and passes every check', async () => {
    const cwd = folder();
    const source = print(['--lang', 'typescript'], cwd, 'bot.ts');
    // The command its first lines give, with the compiler and @types/node a project would install.
    const command = /npx tsc (.+) bot\.ts/.exec(source)?.[1];
    expect(command).toBe('--strict --module nodenext --target es2022 --types node');
    const tsc = spawnSync(
      process.execPath,
      [
        join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'),
        ...command!.split(' '),
        '--typeRoots',
        join(repoRoot, 'node_modules', '@types'),
        'bot.ts',
      ],
      { cwd, encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    await grade(process.execPath, [join(cwd, 'bot.js')], cwd);
  });
});

// Once: what tsc makes of the guide's example; the library itself runs on Node 24 above.
describeOnce('the TypeScript quick start of docs/sandbox.md, "From code"', () => {
  it(
    'compiles under tsc --strict against the installed package, and passes with node --test against a bot as it describes one',
    () => {
      const guide = readFileSync(join(project, 'node_modules', 'core-cli', 'docs', 'sandbox.md'), 'utf8');
      const section = guide.slice(guide.indexOf('### A TypeScript quick start'));
      const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
      expect(example).toMatch(/from 'core-cli\/sandbox'/);
      // A TypeScript project of its own beside the JavaScript one (whose vitest run would take its compiled test for its
      // own), with the same tarball installed: its node_modules are the JavaScript project's.
      const folder = join(work, 'typescript-project');
      mkdirSync(join(folder, 'test'), { recursive: true });
      mkdirSync(join(folder, 'src'), { recursive: true });
      writeFileSync(
        join(folder, 'package.json'),
        `${JSON.stringify({ name: 'a-typescript-bot', private: true, type: 'module' }, null, 2)}\n`,
      );
      if (!existsSync(join(folder, 'node_modules'))) symlinkSync(join(project, 'node_modules'), join(folder, 'node_modules'));
      writeFileSync(join(folder, 'test', 'bot.test.ts'), example!);
      // The bot the example stands for: an echo with a button, answering by questionId.
      writeFileSync(
        join(folder, 'src', 'bot.ts'),
        `import { createServer, type Server } from 'node:http';
export function createBot(settings: () => { baseUrl: string; tenant: string; token: string; secret: string }): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { baseUrl, tenant, token } = settings();
      const questionId = /"questionId":\\s*(\\d+)/.exec(body)?.[1] ?? '0';
      const text = (JSON.parse(body) as { message: { text: string } }).message.text;
      void fetch(\`\${baseUrl}/api/v1/chatbot\`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: \`Bearer \${token}\`, 'X-Tenant-Name': tenant },
        body: \`{"questionId": \${questionId}, "text": \${JSON.stringify(\`You said: \${text}\`)}, "quickReplies": [{"type": "TEXT", "text": "Talk to a person"}]}\`,
      }).then((response) => res.writeHead(response.ok ? 200 : 503).end());
    });
  });
}
`,
      );
      writeFileSync(
        join(folder, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            outDir: 'build',
            types: ['node'],
            typeRoots: [join(repoRoot, 'node_modules', '@types')],
            skipLibCheck: true,
          },
          files: ['test/bot.test.ts', 'src/bot.ts'],
        }),
      );
      const tsc = spawnSync(
        process.execPath,
        [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', folder, '--pretty', 'false'],
        {
          cwd: folder,
          encoding: 'utf8',
        },
      );
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
      // The TAP reporter on every Node (Node 24's default without a terminal is the spec reporter).
      const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', join(folder, 'build', 'test', 'bot.test.js')], {
        cwd: folder,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: work } as NodeJS.ProcessEnv,
      });
      expect(run.stdout).toMatch(/^# pass 1$/m);
      expect(run.status).toBe(0);
    },
    hangLimit(120_000),
  );
});

// Once: vitest's run of the guide's example; the library itself runs on Node 24 above, from an ES module and from CommonJS.
describeOnce('the vitest example of docs/sandbox.md, "From code"', () => {
  it(
    'passes as written, in a project with the tarball installed, against a bot as the example describes it',
    () => {
      // The example as the installed package ships it.
      const guide = readFileSync(join(project, 'node_modules', 'core-cli', 'docs', 'sandbox.md'), 'utf8');
      const section = guide.slice(guide.indexOf('## From code'));
      const example = /```js\n([\s\S]*?)```/.exec(section)?.[1];
      expect(example).toMatch(/from 'core-cli\/sandbox'/);
      mkdirSync(join(project, 'test'), { recursive: true });
      mkdirSync(join(project, 'src'), { recursive: true });
      writeFileSync(join(project, 'test', 'bot.test.mjs'), example!);
      // The bot the example stands for: its node:http server, reading the platform's settings from the function it is given.
      writeFileSync(
        join(project, 'src', 'bot.js'),
        `import { createServer } from 'node:http';

export function createBot(settingsOf) {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const { baseUrl, tenant, token } = settingsOf();
      const questionId = /"questionId":\\s*(\\d+)/.exec(body)[1];
      const text = JSON.parse(body).message.text;
      const answer = /person/i.test(text)
        ? \`{"questionId": \${questionId}, "text": "Passing you to a person.", "code": "SWITCH_TO_HUMAN"}\`
        : \`{"questionId": \${questionId}, "text": \${JSON.stringify(\`You said: \${text}\`)}, "quickReplies": [{"type": "TEXT", "text": "Talk to a person"}]}\`;
      const response = await fetch(\`\${baseUrl}/api/v1/chatbot\`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: \`Bearer \${token}\`, 'X-Tenant-Name': tenant },
        body: answer,
      });
      res.writeHead(response.ok ? 200 : 503).end();
    });
  });
}
`,
      );
      // vitest is the project's development dependency in real life; here, this repository's copy.
      if (!existsSync(join(project, 'node_modules', 'vitest')))
        symlinkSync(join(repoRoot, 'node_modules', 'vitest'), join(project, 'node_modules', 'vitest'));
      const result = spawnSync(
        process.execPath,
        [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', project, '--reporter', 'verbose'],
        {
          cwd: project,
          encoding: 'utf8',
          env: { PATH: process.env.PATH, HOME: work, NO_COLOR: '1', CI: '1' } as NodeJS.ProcessEnv,
        },
      );
      expect(result.stdout + result.stderr).toMatch(/2 passed/);
      expect(result.stdout).toMatch(/✓ .*echoes the customer and offers a person/);
      expect(result.stdout).toMatch(/✓ .*hands the thread over when the customer presses "Talk to a person"/);
      expect(result.status).toBe(0);
    },
    hangLimit(120_000),
  );
});
