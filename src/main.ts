import { createContext, type Context, type Env, type Streams } from './context.js';
import { debugTrace, scrubCredentials } from './debug.js';
import { CoreError, ExitCode, PayloadError, ConfigError } from './errors.js';

export { ExitCode } from './errors.js';
import { plainText } from './output/glyphs.js';
import { printable } from './output/terminal.js';
import { buildProgram, CommanderError, directInvocation, expandHelp, invokedCommand, type Invocation } from './program.js';

export interface MainInit {
  argv: string[];
  streams: Streams;
  env: Env;
  cwd: string;
  signal?: AbortSignal;
  abandonSignal?: AbortSignal;
  /** Sets V8's heap for a long batch (src/heap.ts); absent, the heap is left as it is. */
  tuneHeapForBatch?: () => void;
}

/**
 * Runs one invocation and returns its exit code. The only place that decides exit codes and turns
 * errors into messages (docs/architecture.md, "Rules of the road").
 */
export async function main(init: MainInit): Promise<number> {
  const ctx = createContext({
    streams: init.streams,
    env: init.env,
    cwd: init.cwd,
    colorFlag: init.argv.includes('--no-color') ? false : undefined,
    signal: init.signal,
    abandonSignal: init.abandonSignal,
    tuneHeapForBatch: init.tuneHeapForBatch,
  });
  const inv: Invocation = { ctx, exitCode: undefined };
  let code: number;
  try {
    const direct = directInvocation(init.argv);
    if (direct !== undefined) {
      const { runDirect } = await import('./commands/help/run.js');
      return exitCodeAfterStop(runDirect(direct, ctx), init.signal);
    }
    const argv = expandHelp(init.argv);
    const program = await buildProgram(inv, invokedCommand(argv));
    await program.parseAsync(argv, { from: 'user' });
    code = inv.exitCode ?? ExitCode.ok;
  } catch (error) {
    code = reportError(error, ctx);
  }
  return exitCodeAfterStop(code, init.signal);
}

/**
 * The exit code once the run was asked to stop (src/bin.ts gives the reason): output lost to a
 * closed pipe is 141 whatever the command's own code, and an interruption by SIGHUP is 129
 * (docs/exit-codes.md).
 */
export function exitCodeAfterStop(code: number, signal: AbortSignal | undefined): number {
  if (signal?.aborted !== true) return code;
  if (signal.reason === 'EPIPE') return ExitCode.brokenPipe;
  if (signal.reason === 'SIGHUP' && code === ExitCode.interrupted) return ExitCode.hangup;
  return code;
}

/** Prints an error the way users should see it and returns its exit code. */
export function reportError(error: unknown, ctx: Context): number {
  if (error instanceof CommanderError) {
    // Help and --version end in a CommanderError with exit code 0; commander already printed them.
    if (error.exitCode === 0) return ExitCode.ok;
    return ExitCode.usage;
  }
  if (error instanceof CoreError) {
    ctx.err(formatCoreError(error, ctx));
    // Stacks and causes only, scrubbed (src/debug.ts): never an error object whole, as got's carry
    // the request's headers.
    if (ctx.debug && error.cause !== undefined) ctx.err(debugTrace(error.cause));
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  ctx.err(`error: unexpected failure: ${scrubCredentials(message)}\n`);
  if (ctx.debug && error instanceof Error) ctx.err(debugTrace(error));
  else
    ctx.err('hint: run again with CORE_DEBUG=1 for details, and report it at https://github.com/core-cli/core-cli/issues if it persists\n');
  return ExitCode.internal;
}

export function formatCoreError(error: CoreError, ctx: Context): string {
  const red = (s: string) => (ctx.color.stderr ? `\u001b[31m${s}\u001b[39m` : s);
  // A message may quote a file, the service or another program: each part is made printable.
  // Under a locale that is not UTF-8, core's own punctuation (a cut value's ellipsis) is ASCII.
  const text = (value: string) => printable(plainText(value, ctx.glyphs));
  const lines = [`${red('error:')} ${text(error.message)}`];
  const problems = error instanceof PayloadError || error instanceof ConfigError ? error.problems : [];
  for (const problem of problems) lines.push(`  ${text(problem.path ? `${problem.path}: ` : '')}${text(problem.message)}`);
  if (error.hint) lines.push(`hint: ${text(error.hint)}`);
  return `${lines.join('\n')}\n`;
}
