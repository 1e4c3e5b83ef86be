import { readFile } from 'node:fs/promises';
import type { Answer, Handler } from './exchange.js';

/**
 * The page (docs/sandbox.md, "The page"): `GET /` serves its HTML, `GET /_sandbox/page/<file>` its
 * script modules and style sheet. They are plain files, written as the browser runs them (no build
 * step), kept in src/sandbox/page/ and copied beside the bundle into dist/page/ by the build
 * (tsup.config.ts), so the npm package ships them and the sandbox reads them from beside itself.
 *
 * Every answer carries a strict Content-Security-Policy: scripts and styles only from the sandbox
 * itself (no inline script, no eval), no plugins, no frames, no <base>, forms that post nowhere, and
 * requests only to the sandbox; images may come from anywhere, since the bot's attachments do.
 * Trusted Types leave one way to turn a string into HTML, the policy of the page's Markdown module
 * (page/markdown.js), which re-checks the sandbox's safe HTML against its allow-list.
 */

export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src *',
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types core-markdown',
].join('; ');

/** The headers of every answer of the page and its files. */
export const pageHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy': contentSecurityPolicy,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

/** The page's files, by the name they are served under, with their media types: nothing else is served. */
export const pageFiles: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'page.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'json.js': 'text/javascript; charset=utf-8',
  'markdown.js': 'text/javascript; charset=utf-8',
  'render.js': 'text/javascript; charset=utf-8',
  'refusal.js': 'text/javascript; charset=utf-8',
  'crafts.js': 'text/javascript; charset=utf-8',
  'model.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'agents.js': 'text/javascript; charset=utf-8',
};

/** Where the files are: page/ beside this module (src/sandbox/page/ in the sources, dist/page/ in the bundle). */
export const pageFolder = new URL('./page/', import.meta.url);

export function pageHandlers(folder: URL = pageFolder): { index: Handler; file: Handler } {
  const serve = async (name: string): Promise<Answer> => {
    // Own keys only: `constructor`, `__proto__` or `toString` name something of every object, not a file.
    const type = Object.hasOwn(pageFiles, name) ? pageFiles[name] : undefined;
    if (type === undefined) return { status: 404, error: `no such file of the page: ${name}`, what: 'unknown page file' };
    let text: string;
    try {
      text = await readFile(new URL(name, folder), 'utf8');
    } catch (error) {
      // A package without its page files is broken: say so rather than answer an empty page. The
      // answer names the file, not where it was looked for (no path of this machine in an answer);
      // the log line has the whole reason.
      const reason = error instanceof Error ? error.message : String(error);
      const code = (error as NodeJS.ErrnoException).code;
      return {
        status: 500,
        error: `the page's file ${name} cannot be read${code ? ` (${code})` : ''}: the installation of core is incomplete; reinstall it`,
        what: `page file unreadable: ${reason}`,
      };
    }
    return { status: 200, raw: { contentType: type, text }, headers: { ...pageHeaders }, what: `page ${name}` };
  };
  return {
    index: () => serve('index.html'),
    file: (ex) => serve(ex.params[0] ?? ''),
  };
}
