import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { envValue, homeDir } from '../config/locate.js';
import { ConfigError } from '../errors.js';
import { newWebhookSecret, webhookSecretProblem } from '../sandbox/signature.js';

/** The variable that names a secret instead (src/platform/flags.ts reads it). */
const SECRET_VARIABLE = 'CORE_SANDBOX_WEBHOOK_SECRET';

/**
 * The sandbox's webhook secret, kept per user (docs/sandbox.md, "The webhook secret"): `core
 * sandbox`, and `core test` and `core check-bot` when they start a sandbox, sign with the same secret
 * from one run to the next, so a bot started once with CORE_WEBHOOK_SECRET keeps verifying. It lives
 * in the user's data folder, `$XDG_DATA_HOME/core/webhook-secret` (else
 * `~/.local/share/core/webhook-secret`), as the XDG base directory spec places data a program keeps
 * for the user. The file is made 0600 in a folder made 0700, and read only when it is the user's own
 * and no one else may read or write it, as ssh reads a private key: a secret others can read is no
 * secret, and one others can write is theirs.
 */

export const WEBHOOK_SECRET_FILE = 'webhook-secret';

/** The mode of the secret's file, and the bits that must not be set on one read. */
const FILE_MODE = 0o600;
const OTHERS = 0o077;

/** Where the secret came from, for the line `core sandbox` prints about it. */
export type SecretSource = 'named' | 'kept' | 'new' | 'renewed' | 'unkept';

export interface ResolvedSecret {
  secret: string;
  source: SecretSource;
  /** The file that keeps it; null for a secret named by the flag or the environment. */
  file: string | null;
  /** Why a new secret could not be kept (`unkept`): the file system's error code. */
  unkept?: string;
}

/**
 * The warning for a secret that could not be kept (a read-only home, say): the run goes on with a
 * secret of its own, as every run did before secrets were kept, rather than fail for want of a folder.
 */
export function unkeptWarning(secret: ResolvedSecret): string | undefined {
  if (secret.source !== 'unkept') return undefined;
  return (
    `cannot keep the webhook secret in ${secret.file} (${secret.unkept}): this run signs with a new one of its own; ` +
    `set XDG_DATA_HOME to a folder you can write, or name a secret with ${SECRET_VARIABLE}`
  );
}

/**
 * The secret a sandbox that a command starts signs with: the one its options name (--webhook-secret,
 * else CORE_SANDBOX_WEBHOOK_SECRET, as parseSandboxFlags read them), else the one kept for the user;
 * `renew` (--new-webhook-secret) makes the kept one anew. The options come back with it set.
 */
export async function withSigningSecret<T extends { webhookSecret?: string }>(
  options: T,
  env: Record<string, string | undefined>,
  renew = false,
): Promise<{ options: T & { webhookSecret: string }; secret: ResolvedSecret }> {
  const secret =
    options.webhookSecret !== undefined
      ? { secret: options.webhookSecret, source: 'named' as const, file: null }
      : await keptWebhookSecret(env, { renew });
  return { options: { ...options, webhookSecret: secret.secret }, secret };
}

/** The user data folder: `$XDG_DATA_HOME/core`, else `~/.local/share/core`. */
export function userDataDir(env: Record<string, string | undefined>): string {
  const xdg = envValue(env, 'XDG_DATA_HOME');
  // The XDG spec says a relative path in an XDG variable is invalid and must be ignored.
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homeDir(env), '.local', 'share');
  return path.join(base, 'core');
}

export function webhookSecretFile(env: Record<string, string | undefined>): string {
  return path.join(userDataDir(env), WEBHOOK_SECRET_FILE);
}

/**
 * The kept secret: the file's, when there is one; else a new one, written there first (the first
 * of two runs starting at once wins, and the other reads what it wrote). With `renew`, a new one
 * replaces whatever was kept.
 */
export async function keptWebhookSecret(
  env: Record<string, string | undefined>,
  { renew = false, uid = process.getuid?.() }: { renew?: boolean; uid?: number | undefined } = {},
): Promise<ResolvedSecret> {
  const file = webhookSecretFile(env);
  const kept = renew ? undefined : await readSecret(file, uid);
  if (kept !== undefined) return { secret: kept, source: 'kept', file };
  const secret = newWebhookSecret();
  let written: boolean;
  try {
    written = await writeSecret(file, secret, renew ? 'replace' : 'create');
  } catch (error) {
    return { secret, source: 'unkept', file, unkept: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  if (written) return { secret, source: renew ? 'renewed' : 'new', file };
  // Another run made it between the read and the write: its secret is the one kept.
  const theirs = await readSecret(file, uid);
  if (theirs === undefined) throw unreadable(file, 'it vanished while core read it');
  return { secret: theirs, source: 'kept', file };
}

/** The secret in `file`, undefined when there is no file; a ConfigError when it cannot be trusted or used. */
async function readSecret(file: string, uid: number | undefined): Promise<string | undefined> {
  let handle;
  try {
    // Never through a symbolic link: the secret's file is core's own, and a link there is someone's plan.
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No file, or no folder to hold one (a file where the folder would be): nothing is kept yet.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP') throw untrusted(file, 'is a symbolic link');
    throw unreadable(file, code ?? String(error));
  }
  try {
    const stats = await handle.stat();
    const reasons: string[] = [];
    if (!stats.isFile()) throw unreadable(file, 'it is not a regular file');
    if (process.platform !== 'win32' && uid !== undefined) {
      if (stats.uid !== uid) reasons.push(`is owned by uid ${stats.uid}, not by you (uid ${uid})`);
      if ((stats.mode & OTHERS) !== 0) reasons.push(`has mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}, not 0600`);
    }
    if (reasons.length > 0) throw untrusted(file, reasons.join(' and '), stats.uid === uid);
    // A secret is a line of at most a hundred characters; anything far longer is not one.
    const text = (await handle.readFile({ encoding: 'utf8' })).slice(0, 4096).trim();
    const problem = webhookSecretProblem(text);
    if (problem !== undefined) {
      throw new ConfigError(`the kept webhook secret in ${file} cannot be used: ${problem}`, {
        hint: 'make a new one with core sandbox --new-webhook-secret (and give it to your bot), or name one with --webhook-secret',
      });
    }
    return text;
  } finally {
    await handle.close();
  }
}

/**
 * Writes the secret to `file`, 0600 in a folder made 0700, through a new file that is renamed over
 * (replace) or linked to (create) the name, so a reader never sees half a secret. `create` leaves
 * an existing file as it is and answers false.
 */
async function writeSecret(file: string, secret: string, how: 'create' | 'replace'): Promise<boolean> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = path.join(dir, `.${WEBHOOK_SECRET_FILE}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
    try {
      await handle.writeFile(`${secret}\n`, 'utf8');
      // The umask may have taken bits from the mode above, never added any; chmod states it.
      await handle.chmod(FILE_MODE);
    } finally {
      await handle.close();
    }
    if (how === 'replace') {
      await rename(temporary, file);
      return true;
    }
    try {
      await link(temporary, file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

function untrusted(file: string, why: string, owned = false): ConfigError {
  return new ConfigError(
    `refusing the kept webhook secret ${file}: it ${why}; the file must be yours and readable by you alone, as the secret signs every webhook`,
    {
      hint: owned
        ? `if the file is yours, run: chmod 600 ${file}`
        : `remove ${file} if you do not know it (core sandbox --new-webhook-secret writes a new one), or name a secret with --webhook-secret`,
    },
  );
}

function unreadable(file: string, why: string): ConfigError {
  return new ConfigError(`cannot read the kept webhook secret ${file}: ${why}`, {
    hint: 'name a secret with --webhook-secret or CORE_SANDBOX_WEBHOOK_SECRET, or make a new one with core sandbox --new-webhook-secret',
  });
}
