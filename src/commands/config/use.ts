import { envValue, locateConfig, searchedProblems } from '../../config/index.js';
import { openEditable, saveEditable } from '../../config/edit.js';
import type { Context } from '../../context.js';
import { ConfigError } from '../../errors.js';
import type { GlobalOptions } from '../definition.js';

export interface ConfigUseOptions {
  global: GlobalOptions;
  /** The profile to make the default. */
  name: string;
}

/**
 * `core config use NAME`: makes NAME the `defaultProfile` of the config file in use (the search, or
 * --config / CORE_CONFIG), keeping the file's comments, order and mode. It changes the file, not this
 * shell: CORE_PROFILE, when set, still wins, and a warning says so.
 */
export async function runConfigUse(options: ConfigUseOptions, ctx: Context): Promise<number> {
  const location = await locateConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    flags: { config: options.global.config },
    warn: (message) => ctx.warn(message),
  });
  if (location.configFile === null) {
    throw new ConfigError('no config file found, so there is no profile to use', {
      problems: searchedProblems(location.searched),
      hint: 'create one with: core config init',
    });
  }
  const file = location.configFile;
  const config = await openEditable(file);
  const profiles = config.profiles();
  if (!profiles.includes(options.name)) {
    throw new ConfigError(`${file} has no profile ${JSON.stringify(options.name)}`, {
      hint:
        profiles.length === 0
          ? `add one with: core config init --profile-name ${options.name}`
          : `profiles there: ${profiles.join(', ')}; add another with: core config init --profile-name ${options.name}`,
    });
  }
  if (config.defaultProfile() === options.name) {
    ctx.out(`${options.name} is already the default profile in ${file}\n`);
  } else {
    config.setDefaultProfile(options.name);
    await saveEditable(config);
    ctx.out(`Default profile: ${options.name} (in ${file})\n`);
  }
  const fromEnv = envValue(ctx.env, 'CORE_PROFILE');
  if (fromEnv !== undefined && fromEnv !== options.name) {
    ctx.warn(`CORE_PROFILE=${fromEnv} is set here and wins over defaultProfile: unset it to use ${options.name}`);
  }
  return 0;
}
