/**
 * Configuration (docs/configuration.md): the config file's schema, finding and loading
 * it, choosing the profile, the source of each value, and resolving tokens.
 *
 * `parseDuration` also lives in ./duration.js, which a command definition may import on its own
 * without loading cosmiconfig or zod.
 */
export { parseDuration, formatDuration, MAX_DURATION_MS } from './duration.js';
export {
  loadSettings,
  requireSettings,
  resolveSettingsToken,
  hasLiteralToken,
  searchedProblems,
  DEFAULT_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type LoadInput,
  type Limits,
  type Need,
  type Resolved,
  type Settings,
} from './load.js';
export {
  locateConfig,
  searchFolders,
  userConfigDir,
  homeDir,
  envValue,
  projectSearchPlaces,
  userSearchPlaces,
  USER_CONFIG_NAME,
  SEARCH_PLACES_TEXT,
  USER_PLACES_TEXT,
  type Location,
  type LocateInput,
} from './locate.js';
export {
  configSchema,
  profileSchema,
  secretSpecSchema,
  validateConfig,
  baseUrlProblem,
  headerValueProblem,
  tenantProblem,
  TENANT_HINT,
  type ConfigFile,
  type ProfileConfig,
} from './schema.js';
export { resolveSecret, DEFAULT_SECRET_COMMAND_TIMEOUT_MS, type SecretSpec, type ResolveSecretOptions } from './secret.js';
