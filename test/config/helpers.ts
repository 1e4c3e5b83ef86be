import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createContext, type Context, type Env } from '../../src/context.js';
import { memoryStreams } from '../helpers/streams.js';

/**
 * A temporary home for one test: HOME (and so ~/.config) points into it, and the working folder is
 * a project nested below it, so the search never leaves the temporary tree and never reads the real
 * home.
 */
export interface Sandbox {
  root: string;
  home: string;
  /** ~/work/project/sub: a nested folder inside the home. */
  cwd: string;
  project: string;
  env: Env;
  /** Writes a file (creating its folders) relative to the home, or at an absolute path. */
  write(file: string, content: string, mode?: number): Promise<string>;
}

const roots: string[] = [];

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

export async function sandbox(extraEnv: Env = {}): Promise<Sandbox> {
  // realpath: on macOS the temp folder is a symlink, and cosmiconfig reports real paths.
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'core-config-test-')));
  roots.push(root);
  const home = path.join(root, 'home');
  const project = path.join(home, 'work', 'project');
  const cwd = path.join(project, 'sub');
  await mkdir(cwd, { recursive: true });
  const env: Env = { HOME: home, PATH: process.env.PATH, ...extraEnv };
  return {
    root,
    home,
    cwd,
    project,
    env,
    async write(file, content, mode = 0o600) {
      const full = path.isAbsolute(file) ? file : path.join(home, file);
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, content);
      await chmod(full, mode);
      return full;
    },
  };
}

export interface Captured {
  ctx: Context;
  stdout(): string;
  stderr(): string;
  /** Everything written to either stream. */
  all(): string;
}

/** A context on in-memory streams; `tty` makes standard input look like a terminal. */
export function capture(env: Env, cwd: string, options: { tty?: boolean } = {}): Captured {
  const io = memoryStreams({ stdinIsTTY: options.tty === true });
  const ctx = createContext({ streams: io.streams, env, cwd });
  return { ctx, stdout: io.stdout, stderr: io.stderr, all: () => io.stdout() + io.stderr() };
}

/** A small valid profile in YAML. */
export function yamlProfile(name: string, baseUrl = `https://${name}.example.com`, tenant = name): string {
  return `profiles:\n  ${name}:\n    baseUrl: ${baseUrl}\n    tenant: ${tenant}\n`;
}
