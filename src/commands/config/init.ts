import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  baseUrlProblem,
  locateConfig,
  TENANT_HINT,
  tenantProblem,
  USER_CONFIG_NAME,
  userConfigDir,
  userSearchPlaces,
  validateConfig,
  type SecretSpec,
} from '../../config/index.js';
import { cjs } from '../../interop.js';
import { openEditable, saveEditable, type EditableConfig } from '../../config/edit.js';
import type { Context } from '../../context.js';
import { ConfigError, InterruptedError, UsageError } from '../../errors.js';
import type { GlobalOptions } from '../definition.js';
import { isPromptExit, type Prompter } from '../../prompts/prompter.js';

export interface ConfigInitOptions {
  /** --base-url and --tenant are the root command's options, read from here. */
  global: GlobalOptions;
  force: boolean;
  profileName?: string;
  tokenEnv?: string;
  tokenCommand?: string;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_PROFILE_NAME = 'default';

/**
 * A new file is written with mode 0600 whatever it holds. A literal token needs it (as an ssh key
 * does), and the other forms still tell a reader which variable or password-store entry holds the
 * token; one rule is simpler to trust than two. An existing file keeps its mode, unless the profile
 * added to it holds a literal token: then it becomes 0600.
 */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * `core config init`: adds a profile to the user's config file (`$XDG_CONFIG_HOME/core/config.yaml`,
 * else `~/.config/core/config.yaml`), creating the file when there is none, and asks only for what the
 * flags did not give. An existing file keeps its comments, order and other profiles (src/config/edit.ts);
 * a profile of the same name is replaced only with --force.
 */
export async function runConfigInit(options: ConfigInitOptions, ctx: Context): Promise<number> {
  const given = checkFlags(options);
  const dir = userConfigDir(ctx.env);
  const existing = await existingUserConfig(dir);
  const target = chooseTarget(dir, existing);
  const editable = existing === undefined ? undefined : await openEditable(existing);
  // Profiles that --force may replace but nothing else may: refused before asking anything, since
  // answering questions only to be told "no" is rude.
  const taken = options.force ? [] : (editable?.profiles() ?? []);
  if (given.profileName !== undefined && taken.includes(given.profileName)) throw profileExists(given.profileName, target);

  const needed = [
    given.baseUrl === undefined ? '--base-url URL' : undefined,
    given.tenant === undefined ? '--tenant NAME' : undefined,
    given.token === undefined ? '--token-env NAME (or --token-command CMD)' : undefined,
  ].filter((flag): flag is string => flag !== undefined);
  if (needed.length > 0 && ctx.streams.stdin.isTTY !== true) {
    // An inquirer prompt on a pipe waits forever, as inquirer never checks for a terminal; fail at once instead.
    throw new UsageError(`core config init needs a terminal to ask for what is missing, and standard input is not one`, {
      hint: `pass ${needed.join(', ')}, for example: core config init --base-url https://chat.example.com --tenant acme --token-env CORE_TOKEN_ACME`,
    });
  }

  let answers = given;
  if (needed.length > 0) {
    answers = await ask(given, ctx.prompter(), taken).catch((error: unknown) => {
      // Ctrl-C at a prompt (or SIGTERM): exit 130, and the file was not touched.
      if (isPromptExit(error)) throw new InterruptedError('cancelled, nothing written');
      throw error;
    });
  }
  const profileName = answers.profileName ?? DEFAULT_PROFILE_NAME;
  if (taken.includes(profileName)) throw profileExists(profileName, target);
  const profile = { baseUrl: answers.baseUrl!, tenant: answers.tenant!, token: answers.token! };
  if (typeof answers.token === 'string') ctx.addSecret(answers.token);

  if (editable === undefined) await writeNewFile(target, profileName, profile, ctx);
  else await addToFile(editable, target, profileName, profile, typeof answers.token === 'string', ctx);
  await adviseAfterWrite(target, answers.token!, ctx);
  return 0;
}

type Profile = { baseUrl: string; tenant: string; token: SecretSpec };

/** A new config file holding the one profile, its default. */
async function writeNewFile(target: string, profileName: string, profile: Profile, ctx: Context): Promise<void> {
  const config = { defaultProfile: profileName, profiles: { [profileName]: profile } };
  // The file must load with the same schema that reads it: one source of truth for the rules.
  const { problems } = validateConfig(config);
  if (problems.length > 0) throw new ConfigError('the answers do not make a valid config file', { problems });
  await writeConfig(target, await render(target, config));
  ctx.out(`Wrote profile ${profileName} to ${target}\n`);
}

/** The profile added to the existing file (or put in place of its namesake, with --force), its comments and order kept. */
async function addToFile(
  editable: EditableConfig,
  target: string,
  profileName: string,
  profile: Profile,
  literalToken: boolean,
  ctx: Context,
): Promise<void> {
  const before = editable.profiles();
  const replaced = before.includes(profileName);
  editable.setProfile(profileName, profile);
  // Adding a profile does not change which one is used: a file whose only profile was used
  // implicitly now names it, so the new one does not leave the choice open.
  if (editable.defaultProfile() === undefined) {
    editable.setDefaultProfile(before.length === 1 && !replaced ? before[0]! : profileName);
  }
  await saveEditable(editable, { privateMode: literalToken });
  ctx.out(`${replaced ? 'Replaced' : 'Added'} profile ${profileName} ${replaced ? 'in' : 'to'} ${target}\n`);
  const chosen = editable.defaultProfile();
  if (chosen !== profileName) {
    ctx.err(
      `The default profile stays ${chosen}: use this one with -p ${profileName}, or make it the default with: core config use ${profileName}\n`,
    );
  }
}

function profileExists(name: string, file: string): UsageError {
  return new UsageError(`profile ${name} already exists in ${file}`, {
    hint: 'choose another --profile-name, or pass --force to replace that profile',
  });
}

interface Answers {
  profileName?: string;
  baseUrl?: string;
  tenant?: string;
  token?: SecretSpec;
}

function checkFlags(options: ConfigInitOptions): Answers {
  const { profileName, tokenEnv, tokenCommand } = options;
  const { baseUrl, tenant } = options.global;
  if (profileName !== undefined && !PROFILE_NAME.test(profileName)) {
    throw new UsageError(`--profile-name: ${JSON.stringify(profileName)} is not a usable profile name`, {
      hint: 'use letters, digits, -, _ and ., starting with a letter or digit',
    });
  }
  if (baseUrl !== undefined) {
    const problem = baseUrlProblem(baseUrl);
    if (problem) throw new UsageError(`--base-url: ${problem}`);
  }
  if (tenant !== undefined && tenant.trim() === '') throw new UsageError('--tenant needs a tenant name');
  const tenantIssue = tenant === undefined ? undefined : tenantProblem(tenant);
  if (tenantIssue) throw new UsageError(`--tenant: ${tenantIssue}`, { hint: TENANT_HINT });
  if (tokenEnv !== undefined && tokenCommand !== undefined) {
    throw new UsageError('give --token-env or --token-command, not both');
  }
  if (tokenEnv !== undefined && !ENV_NAME.test(tokenEnv)) {
    throw new UsageError(`--token-env: ${JSON.stringify(tokenEnv)} is not an environment variable name`, {
      hint: 'use letters, digits and _, not starting with a digit, such as CORE_TOKEN_ACME',
    });
  }
  if (tokenCommand !== undefined && tokenCommand.trim() === '') throw new UsageError('--token-command needs a command');
  const token: SecretSpec | undefined =
    tokenEnv !== undefined ? { env: tokenEnv } : tokenCommand !== undefined ? { command: tokenCommand } : undefined;
  return { profileName, baseUrl, tenant, token };
}

async function ask(given: Answers, prompter: Prompter, taken: string[]): Promise<Answers> {
  const profileName =
    given.profileName ??
    (
      await prompter.input({
        message: 'Profile name',
        default: taken.includes(DEFAULT_PROFILE_NAME) ? undefined : DEFAULT_PROFILE_NAME,
        validate: (value) =>
          !PROFILE_NAME.test(value.trim())
            ? 'letters, digits, -, _ and ., starting with a letter or digit'
            : taken.includes(value.trim())
              ? `the file has a profile ${value.trim()} already; choose another name (or pass --force to replace it)`
              : true,
      })
    ).trim();
  const baseUrl =
    given.baseUrl ??
    (
      await prompter.input({
        message: "The service's base URL",
        validate: (value) => baseUrlProblem(value.trim()) ?? true,
      })
    ).trim();
  const tenant =
    given.tenant ??
    (
      await prompter.input({
        message: 'Tenant (sent as X-Tenant-Name)',
        validate: (value) => (value.trim() === '' ? 'the tenant name is needed' : (tenantProblem(value.trim()) ?? true)),
      })
    ).trim();
  const token = given.token ?? (await askToken(prompter, profileName));
  return { profileName, baseUrl, tenant, token };
}

async function askToken(prompter: Prompter, profileName: string): Promise<SecretSpec> {
  const kind = await prompter.select({
    message: 'Where should the token come from?',
    choices: [
      {
        name: 'An environment variable (recommended)',
        value: 'env',
        description: 'the file names the variable; the token stays out of it',
      },
      { name: 'A command that prints it', value: 'command', description: 'a password manager, such as: pass show core/staging' },
      {
        name: 'Stored in the file (not recommended)',
        value: 'literal',
        description: 'the token is written into the file, readable by you only',
      },
    ] as const,
    default: 'env',
  });
  if (kind === 'env') {
    const suggested = `CORE_${profileName.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_TOKEN`.replace(/_+/g, '_');
    const name = await prompter.input({
      message: 'Environment variable that holds the token',
      default: suggested,
      validate: (value) => ENV_NAME.test(value.trim()) || 'letters, digits and _, not starting with a digit',
    });
    return { env: name.trim() };
  }
  if (kind === 'command') {
    const command = await prompter.input({
      message: 'Command that prints the token',
      validate: (value) => value.trim() !== '' || 'a command is needed',
    });
    return { command: command.trim() };
  }
  const token = await prompter.password({
    message: 'Token (it will be stored in the file)',
    // eslint-disable-next-line no-control-regex
    validate: (value) => (value.trim() !== '' && !/[\u0000-\u001f\u007f]/.test(value.trim())) || 'paste the token on one line',
  });
  return token.trim();
}

/** The first user config file cosmiconfig's names would find in the folder, if any. */
async function existingUserConfig(dir: string): Promise<string | undefined> {
  for (const name of userSearchPlaces) {
    const file = path.join(dir, name);
    try {
      await stat(file);
      return file;
    } catch {
      // Not there.
    }
  }
  return undefined;
}

/**
 * The file to write: config.yaml, or the user config file already there, so that the profile is not
 * written to a file shadowed by it (`config` and `config.json` are read before `config.yaml`). A
 * JavaScript file is code that `init` cannot rewrite.
 */
function chooseTarget(dir: string, existing: string | undefined): string {
  if (existing === undefined) return path.join(dir, USER_CONFIG_NAME);
  if (/\.(c|m)?js$/.test(existing)) {
    throw new UsageError(`${existing} is JavaScript, which core config init does not rewrite`, {
      hint: 'edit it by hand, or remove it and run core config init again',
    });
  }
  return existing;
}

async function render(target: string, config: { defaultProfile: string; profiles: Record<string, unknown> }): Promise<string> {
  if (target.endsWith('.json')) return `${JSON.stringify(config, null, 2)}\n`;
  const { stringify } = cjs(await import('yaml'), 'stringify');
  return (
    '# core configuration: see "core config show" and docs/configuration.md.\n' +
    '# More profiles can be added under profiles:, and chosen with -p NAME or CORE_PROFILE.\n' +
    stringify(config)
  );
}

/** A file-system failure while writing the config file, as a message naming the path and the reason. */
function writeError(error: unknown, target: string): unknown {
  if (error instanceof UsageError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) return error;
  return new ConfigError(`cannot write the config file ${target} (${code})`, {
    hint: 'check that its folder can be created and written to ($XDG_CONFIG_HOME/core, else ~/.config/core)',
  });
}

async function writeConfig(target: string, content: string): Promise<void> {
  try {
    await makeFolders(path.dirname(target), DIR_MODE);
    // 'wx' fails if the file appeared since the check: a file written meanwhile is never overwritten.
    await writeFile(target, content, { flag: 'wx', mode: FILE_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UsageError(`${target} appeared while core config init ran`, {
        hint: 'run core config init again to add the profile to it',
      });
    }
    throw writeError(error, target);
  }
}

/**
 * `mkdir -p`, one level at a time, each tried at most twice. Node's recursive mkdir retries for ever
 * where mkdir answers ENOENT although the parent exists (a folder under /proc), spinning at full CPU
 * in a call no signal can end; here that ENOENT is final, and reported.
 */
async function makeFolders(dir: string, mode: number): Promise<void> {
  try {
    await mkdir(dir, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if ((await stat(dir)).isDirectory()) return;
      throw Object.assign(new Error(`${dir} is not a folder`), { code: 'ENOTDIR' });
    }
    if (code !== 'ENOENT' || path.dirname(dir) === dir) throw error;
  }
  await makeFolders(path.dirname(dir), mode);
  await mkdir(dir, { mode });
}

/** Tells the user what else to do: set the variable, and which file wins from here. */
async function adviseAfterWrite(target: string, token: SecretSpec, ctx: Context): Promise<void> {
  if (typeof token === 'object' && 'env' in token && !ctx.env[token.env]) {
    ctx.err(`Set ${token.env} before sending, for example: export ${token.env}=...\n`);
  }
  try {
    const location = await locateConfig({ cwd: ctx.cwd, env: ctx.env, flags: {} });
    if (location.configFile !== null && location.configFile !== target) {
      ctx.warn(
        `${location.namedBy ? `${location.namedBy} names` : 'from this folder the search finds'} ${location.configFile} first, so that file is the one in use here`,
      );
    }
  } catch {
    // A broken CORE_CONFIG or another unreadable file is for `core config show` to report.
  }
  ctx.err('Check the result with: core config show\n');
}
