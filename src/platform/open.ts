import { spawn } from 'node:child_process';
import type { Context, Env } from '../context.js';

/**
 * `core sandbox --open`: the page in the user's browser, the way gh and the Stripe CLI open one:
 * `$BROWSER` when set (one program, given the URL as its only argument), else the system's opener
 * (`open` on macOS, `start` on Windows, `xdg-open` elsewhere). Opening a browser is a convenience:
 * when it cannot be done (no opener, no display, the program fails), the sandbox says so in a
 * warning, with the URL to open by hand, and goes on serving.
 */

export interface BrowserCommand {
  command: string;
  args: string[];
  /** Windows: the arguments are written as given (quoted here), not quoted again by Node. */
  verbatim: boolean;
}

export function browserCommand(url: string, platform: NodeJS.Platform, env: Env): BrowserCommand {
  const chosen = env.BROWSER?.trim();
  if (chosen) return { command: chosen, args: [url], verbatim: false };
  if (platform === 'darwin') return { command: 'open', args: [url], verbatim: false };
  // `start` is a command of cmd; its first quoted argument is a window title, hence the empty one.
  if (platform === 'win32') return { command: 'cmd', args: ['/s', '/c', 'start', '""', '/b', `"${url}"`], verbatim: true };
  return { command: 'xdg-open', args: [url], verbatim: false };
}

/** Starts the browser on `url` and returns at once; any failure becomes a warning on stderr. */
export function openInBrowser(url: string, ctx: Context, platform: NodeJS.Platform = process.platform): void {
  const { command, args, verbatim } = browserCommand(url, platform, ctx.env);
  const failed = (why: string) => ctx.warn(`could not open the page in a browser (${command}: ${why}); open ${url} yourself`);
  try {
    const child = spawn(command, args, {
      env: ctx.env as NodeJS.ProcessEnv,
      stdio: 'ignore',
      detached: true,
      windowsVerbatimArguments: verbatim,
    });
    child.on('error', (error: NodeJS.ErrnoException) => failed(error.code === 'ENOENT' ? 'not found' : error.message));
    child.on('exit', (code, signal) => {
      if (code !== 0 && code !== null) failed(`exit status ${code}`);
      else if (signal !== null) failed(`ended by ${signal}`);
    });
    // The browser may outlive the sandbox; the sandbox does not wait for it.
    child.unref();
  } catch (error) {
    failed(error instanceof Error ? error.message : String(error));
  }
}
