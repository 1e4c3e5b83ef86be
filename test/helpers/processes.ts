import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { happens } from './wait.js';

/**
 * Long-running programs a test starts and talks to (a sandbox, the example bot): started with
 * `startProcess`, stopped by `stopProcesses` in afterEach, each waited for until it has exited.
 */

const started: ChildProcess[] = [];

/** A port nothing listens on now: bound, read, and released for a server to take. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts `command`; `started` resolves once its stdout matches `ready`, with what it printed so far,
 * and rejects (with its output) if it exits first.
 */
export function startProcess(command: string, args: string[], env: Record<string, string | undefined>, ready: RegExp) {
  const child = spawn(command, args, { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const ready_ = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => ready.test(out) && resolve(out));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${out}${err}`)));
  });
  return { child, started: happens(ready_, `${args[0]} to start`), output: () => out, errors: () => err };
}

/** Ends (SIGTERM) every program startProcess started that is still running, and waits for each to exit; for afterEach. */
export async function stopProcesses(): Promise<void> {
  for (const child of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
