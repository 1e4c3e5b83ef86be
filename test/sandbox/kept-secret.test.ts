import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptWebhookSecret, unkeptWarning, webhookSecretFile, withSigningSecret } from '../../src/platform/secret.js';
import { ConfigError } from '../../src/errors.js';
import { newWebhookSecret } from '../../src/sandbox/signature.js';

/**
 * The sandbox's webhook secret, kept per user (docs/sandbox.md, "The webhook secret"): made on first
 * use in the user's data folder, 0600 in a folder 0700, the same from one run to the next, made anew
 * on request, and read only from a file that is the user's own and no one else's to read or write.
 * Every test has a home of its own; none touches the real user's.
 */

const home = () => mkdtempSync(join(tmpdir(), 'core-secret-home-'));
const SECRET_SHAPE = /^whsec_[A-Za-z0-9+/]{43}=$/;
const mode = (path: string) => statSync(path).mode & 0o777;
const me = process.getuid?.();
const runningAsRoot = me === 0;

async function refusal(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('the kept webhook secret', () => {
  it('is made on first use in $XDG_DATA_HOME/core/webhook-secret, 0600 in a folder 0700, and the same on every later use', async () => {
    const data = join(home(), 'data');
    const env = { HOME: home(), XDG_DATA_HOME: data };
    const first = await keptWebhookSecret(env);
    const file = join(data, 'core', 'webhook-secret');
    expect(first).toEqual({ secret: expect.stringMatching(SECRET_SHAPE), source: 'new', file });
    expect(readFileSync(file, 'utf8')).toBe(`${first.secret}\n`);
    expect(mode(file)).toBe(0o600);
    expect(mode(join(data, 'core'))).toBe(0o700);
    // Nothing is left beside it.
    expect(readdirSync(join(data, 'core'))).toEqual(['webhook-secret']);

    const second = await keptWebhookSecret(env);
    expect(second).toEqual({ secret: first.secret, source: 'kept', file });
  });

  it.each([
    ['no XDG_DATA_HOME', undefined],
    ['an empty XDG_DATA_HOME', ''],
    ['a relative XDG_DATA_HOME, which the XDG spec says to ignore', 'relative/data'],
  ])('lives in ~/.local/share/core/ with %s', async (_, xdg) => {
    const folder = home();
    const env = { HOME: folder, ...(xdg === undefined ? {} : { XDG_DATA_HOME: xdg }) };
    expect(webhookSecretFile(env)).toBe(join(folder, '.local', 'share', 'core', 'webhook-secret'));
    const made = await keptWebhookSecret(env);
    expect(made.file).toBe(join(folder, '.local', 'share', 'core', 'webhook-secret'));
    expect(readFileSync(made.file!, 'utf8').trim()).toBe(made.secret);
  });

  it('is made anew on request, in place of the last, and the new one is kept', async () => {
    const env = { HOME: home() };
    const first = await keptWebhookSecret(env);
    const renewed = await keptWebhookSecret(env, { renew: true });
    expect(renewed).toEqual({ secret: expect.stringMatching(SECRET_SHAPE), source: 'renewed', file: first.file });
    expect(renewed.secret).not.toBe(first.secret);
    expect(mode(first.file!)).toBe(0o600);
    expect(await keptWebhookSecret(env)).toEqual({ secret: renewed.secret, source: 'kept', file: first.file });
  });

  it('is one secret when several runs start at once with none kept: the first written wins, the others read it', async () => {
    const env = { HOME: home() };
    const all = await Promise.all(Array.from({ length: 8 }, () => keptWebhookSecret(env)));
    const secrets = new Set(all.map((kept) => kept.secret));
    expect(secrets.size).toBe(1);
    expect(all.filter((kept) => kept.source === 'new')).toHaveLength(1);
    expect(readFileSync(all[0]!.file!, 'utf8').trim()).toBe([...secrets][0]);
    expect(readdirSync(join(env.HOME, '.local', 'share', 'core'))).toEqual(['webhook-secret']);
  });

  it('reads a secret written there by hand, white space around it aside', async () => {
    const env = { HOME: home() };
    const file = webhookSecretFile(env);
    const secret = newWebhookSecret();
    mkdirSync(join(env.HOME, '.local', 'share', 'core'), { recursive: true });
    writeFileSync(file, `  ${secret}\r\n\n`, { mode: 0o600 });
    expect(await keptWebhookSecret(env)).toEqual({ secret, source: 'kept', file });
  });

  describe('is refused unless the file is the user’s own and no one else may read or write it', () => {
    /** A kept secret whose file then gets `mode`. */
    async function keptWithMode(fileMode: number) {
      const env = { HOME: home() };
      const made = await keptWebhookSecret(env);
      chmodSync(made.file!, fileMode);
      return { env, made };
    }

    it.each(['0600', '0400', '0700'])('takes a file of mode %s', async (text) => {
      const fileMode = parseInt(text, 8);
      const { env, made } = await keptWithMode(fileMode);
      expect((await keptWebhookSecret(env)).secret).toBe(made.secret);
    });

    it.each(['0640', '0604', '0620', '0602', '0660', '0644', '0666'])(
      'refuses a file of mode %s, naming it and the chmod that fixes it',
      async (text) => {
        const fileMode = parseInt(text, 8);
        const { env, made } = await keptWithMode(fileMode);
        const error = await refusal(keptWebhookSecret(env));
        expect(error.exitCode).toBe(2);
        expect(error.message).toBe(
          `refusing the kept webhook secret ${made.file}: it has mode 0${fileMode.toString(8)}, not 0600; ` +
            'the file must be yours and readable by you alone, as the secret signs every webhook',
        );
        expect(error.hint).toBe(`if the file is yours, run: chmod 600 ${made.file}`);
        expect(error.message).not.toContain(made.secret);
        // Refused, not mended behind the user's back.
        expect(mode(made.file!)).toBe(fileMode);
      },
    );

    it('refuses a file another user owns', async () => {
      const env = { HOME: home() };
      const made = await keptWebhookSecret(env);
      // As root, the file is given away; as anyone else, who cannot, the reader is told it runs as someone else.
      if (runningAsRoot) chownSync(made.file!, 4242, 4242);
      const error = await refusal(keptWebhookSecret(env, runningAsRoot ? {} : { uid: 4242 }));
      const owner = runningAsRoot ? 4242 : me;
      const reader = runningAsRoot ? 0 : 4242;
      expect(error.message).toContain(`it is owned by uid ${owner}, not by you (uid ${reader})`);
      expect(error.hint).toBe(
        `remove ${made.file} if you do not know it (core sandbox --new-webhook-secret writes a new one), or name a secret with --webhook-secret`,
      );
    });

    it('refuses a symbolic link, even to a good secret of the user’s', async () => {
      const env = { HOME: home() };
      const elsewhere = join(home(), 'secret');
      writeFileSync(elsewhere, `${newWebhookSecret()}\n`, { mode: 0o600 });
      mkdirSync(join(env.HOME, '.local', 'share', 'core'), { recursive: true });
      symlinkSync(elsewhere, webhookSecretFile(env));
      const error = await refusal(keptWebhookSecret(env));
      expect(error.message).toContain(`refusing the kept webhook secret ${webhookSecretFile(env)}: it is a symbolic link`);
    });

    it('replaces a refused file when asked for a new secret, without following a link there', async () => {
      const env = { HOME: home() };
      const elsewhere = join(home(), 'not-core');
      writeFileSync(elsewhere, 'someone else’s file\n');
      mkdirSync(join(env.HOME, '.local', 'share', 'core'), { recursive: true });
      symlinkSync(elsewhere, webhookSecretFile(env));
      const renewed = await keptWebhookSecret(env, { renew: true });
      expect(readFileSync(elsewhere, 'utf8')).toBe('someone else’s file\n');
      expect(readFileSync(webhookSecretFile(env), 'utf8')).toBe(`${renewed.secret}\n`);
      expect(mode(webhookSecretFile(env))).toBe(0o600);
    });
  });

  it.each([
    ['text that is no secret', 'hello', 'must start with whsec_'],
    ['a key too short', 'whsec_c2hvcnQ=', 'the key is 5 bytes'],
    ['an empty file', '', 'must start with whsec_'],
  ])('refuses a file holding %s, saying why and how to make a new one, never printing it', async (_, content, why) => {
    const env = { HOME: home() };
    mkdirSync(join(env.HOME, '.local', 'share', 'core'), { recursive: true });
    writeFileSync(webhookSecretFile(env), content, { mode: 0o600 });
    const error = await refusal(keptWebhookSecret(env));
    expect(error.message).toContain(`the kept webhook secret in ${webhookSecretFile(env)} cannot be used: ${why}`);
    if (content.length > 6) expect(error.message).not.toContain(content.slice(6));
    expect(error.hint).toContain('core sandbox --new-webhook-secret');
  });

  it('is not kept where the data folder cannot be made, and the run signs with one of its own, saying so', async () => {
    const folder = home();
    // A file where the folder should be: no user, root included, can make a folder under it.
    writeFileSync(join(folder, 'data'), '');
    const env = { HOME: folder, XDG_DATA_HOME: join(folder, 'data') };
    const unkept = await keptWebhookSecret(env);
    expect(unkept).toEqual({
      secret: expect.stringMatching(SECRET_SHAPE),
      source: 'unkept',
      file: webhookSecretFile(env),
      unkept: 'ENOTDIR',
    });
    expect(unkeptWarning(unkept)).toBe(
      `cannot keep the webhook secret in ${webhookSecretFile(env)} (ENOTDIR): this run signs with a new one of its own; ` +
        'set XDG_DATA_HOME to a folder you can write, or name a secret with CORE_SANDBOX_WEBHOOK_SECRET',
    );
    expect(unkeptWarning({ ...unkept, source: 'kept' })).toBeUndefined();
  });

  it('is not read, nor made, when the options name a secret', async () => {
    const env = { HOME: home() };
    const named = newWebhookSecret();
    const { options, secret } = await withSigningSecret<{ webhookSecret?: string; port: number }>({ webhookSecret: named, port: 0 }, env);
    expect(options).toEqual({ webhookSecret: named, port: 0 });
    expect(secret).toEqual({ secret: named, source: 'named', file: null });
    expect(existsSync(join(env.HOME, '.local'))).toBe(false);

    const { options: kept, secret: made } = await withSigningSecret<{ webhookSecret?: string; port: number }>({ port: 0 }, env);
    expect(made.source).toBe('new');
    expect(kept).toEqual({ port: 0, webhookSecret: made.secret });
  });
});
