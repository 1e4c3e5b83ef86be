import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Context } from '../../context.js';
import { ExitCode, NetworkError, UsageError } from '../../errors.js';
import { envValue } from '../../config/locate.js';

/**
 * `core bridge record --out DIR` (docs/bridge.md, "Tests from real conversations"): every
 * conversation a running bridge keeps, saved as a `core test` file through its
 * GET /_sandbox/conversations/{sessionId}/test, the way the page's "Save as test" saves one.
 */

export interface RecordFlags {
  out: string;
  sandbox?: string;
  loose: boolean;
  keepPersonalData: boolean;
  json: boolean;
}

/** The time limit of one request to the bridge: a local server. */
const REQUEST_LIMIT_MS = 30_000;

export async function runBridgeRecord(flags: RecordFlags, ctx: Context): Promise<number> {
  if (flags.out.trim() === '') throw new UsageError('--out needs a folder', { hint: 'such as --out tests/real' });
  const base = bridgeUrl(flags.sandbox ?? envValue(ctx.env, 'CORE_BASE_URL'));
  const sessions = await conversations(base, ctx);
  const out = resolve(ctx.cwd, flags.out);
  await mkdir(out, { recursive: true });
  const query = `loose=${String(flags.loose)}&personal-data=${flags.keepPersonalData ? 'keep' : 'mask'}`;
  const written: { sessionId: string; file: string }[] = [];
  const taken = new Set<string>();
  for (const sessionId of sessions) {
    const answer = await get(base, `/_sandbox/conversations/${encodeURIComponent(sessionId)}/test?${query}`, ctx);
    if (answer.status === 404) continue; // forgotten meanwhile
    if (answer.status !== 200) throw refused(answer, base);
    const name = /filename="([^"]+)"/.exec(answer.headers.get('content-disposition') ?? '')?.[1] ?? `${sessionId}.yaml`;
    const file = await writeFree(out, name, sessionId, await answer.text(), taken);
    written.push({ sessionId, file });
    ctx.err(`${sessionId} -> ${file}\n`);
  }
  if (flags.json) ctx.out(`${JSON.stringify({ out, files: written }, null, 2)}\n`);
  else ctx.out(`${written.length} conversation${written.length === 1 ? '' : 's'} saved in ${out}\n`);
  return ExitCode.ok;
}

/** Writes a test file under its name, or the name with its sessionId when that is taken; never over a file. */
async function writeFree(folder: string, name: string, sessionId: string, text: string, used: Set<string>): Promise<string> {
  const stem = name.replace(/\.yaml$/, '');
  for (const candidate of [name, `${stem}-${sessionId}.yaml`]) {
    if (used.has(candidate)) continue;
    try {
      await writeFile(join(folder, candidate), text, { flag: 'wx' });
      used.add(candidate);
      return join(folder, candidate);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new UsageError(
    `${join(folder, name)} and ${join(folder, `${stem}-${sessionId}.yaml`)} exist already: core does not overwrite them`,
    {
      hint: 'choose another --out folder, or move the old files away',
    },
  );
}

function bridgeUrl(value: string | undefined): string {
  if (value === undefined) {
    throw new UsageError("core bridge record needs the bridge's address", {
      hint: 'pass --sandbox URL, or source the export lines core bridge printed (CORE_BASE_URL)',
    });
  }
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href.replace(/\/+$/, '');
  } catch {
    // below
  }
  throw new UsageError(`--sandbox ${JSON.stringify(value)} is not an http URL`, { hint: 'such as http://127.0.0.1:8787' });
}

async function get(base: string, path: string, ctx: Context): Promise<Response> {
  try {
    return await fetch(`${base}${path}`, { signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(REQUEST_LIMIT_MS)]) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new NetworkError(`cannot reach the bridge at ${base}: ${cause}`, cause ?? 'ENETWORK', {
      hint: 'is core bridge running? pass its address with --sandbox URL',
    });
  }
}

function refused(answer: Response, base: string): UsageError {
  return new UsageError(`${base} answered ${answer.status}, not as a core bridge or core sandbox does`, {
    hint: 'pass the address core bridge printed (CORE_BASE_URL of its export lines) with --sandbox URL',
  });
}

/** The sessionIds of every kept conversation, page by page. */
async function conversations(base: string, ctx: Context): Promise<string[]> {
  const sessions: string[] = [];
  let after = 0;
  for (;;) {
    const answer = await get(base, `/_sandbox/conversations?after=${after}&limit=100`, ctx);
    if (answer.status !== 200) throw refused(answer, base);
    let page: { conversations?: { sessionId: string }[]; next?: number | null; nextAfter?: number | null };
    try {
      page = (await answer.json()) as typeof page;
    } catch {
      throw refused(answer, base);
    }
    if (!Array.isArray(page.conversations)) throw refused(answer, base);
    for (const conversation of page.conversations ?? []) sessions.push(conversation.sessionId);
    const next = page.next ?? page.nextAfter ?? null;
    if (next === null || next === undefined || (page.conversations ?? []).length === 0) return sessions;
    after = next;
  }
}
