/**
 * The descriptions of the config file's JSON Schema, by path (see `applyNotes` in json-schema.ts).
 * The structure, types and bounds come from `configSchema` (src/config/schema.ts); only the words are
 * here, along with the rules its refinements check and a JSON Schema cannot express. They follow
 * docs/configuration.md.
 */

const TOKEN_FORMS = 'a literal string, {env: NAME} or {command: "..."}';

function tokenNotes(key: string, description: string): Record<string, string> {
  const at = `profiles.*.${key}`;
  return {
    [at]: description,
    [`${at}|0`]: 'The token itself. It must not hold a line break or control character; keep the file readable by you only (chmod 600).',
    [`${at}|1`]: 'Read the token from an environment variable.',
    [`${at}|1.env`]: 'The name of the environment variable: letters, digits and _, not starting with a digit.',
    [`${at}|2`]: "Run a shell command (in the config file's folder, 10 s time limit) and use the first line it prints.",
    [`${at}|2.command`]: 'The shell command that prints the token, such as "pass show core/staging".',
  };
}

export const CONFIG_NOTES: Readonly<Record<string, string>> = {
  '': [
    'The configuration of core: profiles of settings for the chatbot integration API.',
    'Found as .corerc (YAML or JSON), .corerc.json|yaml|yml or the core key of package.json,',
    'from the current folder up to the home folder, then in $XDG_CONFIG_HOME/core/ (else ~/.config/core/); --config FILE (env CORE_CONFIG) names one file instead.',
    'A file found this way must be owned by the user (or root) and writable by the user alone; a JavaScript config is loaded only when named.',
    'Precedence, highest first: flags, environment, the chosen profile, defaults.',
    'Rules a JSON Schema cannot express: defaultProfile must name a profile of this file;',
    'baseUrl must be an absolute http or https URL without user name, password, query or fragment;',
    'timeout must be a duration from 1 ms to 2147483647 ms;',
    'tokens must not hold a line break or control character;',
    'proxy must be an http or https URL.',
  ].join(' '),
  $schema: 'Ignored by core: the URL or path of this JSON Schema, for editors that read it from the file.',
  defaultProfile:
    'The profile used when neither -p/--profile nor CORE_PROFILE names one. Must name a profile of this file. With a single profile, that one is used.',
  profiles: 'Profiles by name, such as staging and prod: the settings for one service and tenant each.',
  'profiles.*': 'One profile. Every key is optional; flags and environment variables override each of them.',
  'profiles.*.baseUrl':
    "The service's {base_url}, such as https://chat.example.com: an absolute http or https URL without user name, password, query or fragment. Env CORE_BASE_URL, flag --base-url.",
  'profiles.*.tenant':
    'The tenant, sent as X-Tenant-Name on every request: tab, printable ASCII and Latin-1 (U+0080 to U+00FF) only, no line break. Env CORE_TENANT, flag --tenant.',
  ...tokenNotes(
    'token',
    `The bot's access token, sent as "Authorization: Bearer <token>" by core reply and core greet: ${TOKEN_FORMS}. Env CORE_TOKEN (there is no flag: flags leak into shell history).`,
  ),
  ...tokenNotes(
    'integratorToken',
    `The credential of core reason update (permission INTEGRATOR), sent as a Bearer token: ${TOKEN_FORMS}. When absent, token is used. Env CORE_INTEGRATOR_TOKEN.`,
  ),
  'profiles.*.webhookSecret':
    "The platform's webhook signing secret: core bridge verifies the MESSAGE webhooks it receives with it (Standard Webhooks). A whsec_... string, or read from an environment variable or a command as a token is. A secret: never printed.",
  'profiles.*.webhookSecret|0':
    'The secret itself: whsec_ followed by the base64 of 24 to 64 bytes; keep the file readable by you only (chmod 600).',
  'profiles.*.webhookSecret|1': 'Read the secret from an environment variable.',
  'profiles.*.webhookSecret|1.env': 'The name of the environment variable: letters, digits and _, not starting with a digit.',
  'profiles.*.webhookSecret|2': "Run a shell command (in the config file's folder, 10 s time limit) and use the first line it prints.",
  'profiles.*.webhookSecret|2.command': 'The shell command that prints the secret.',
  'profiles.*.headers':
    "Extra request headers sent with every request, by name. A header named here replaces core's own: an Authorization header replaces the Bearer token (for a credential of another format).",
  'profiles.*.headers.*':
    'A header value: a string of tab, printable ASCII and Latin-1 (U+0080 to U+00FF) only, without line breaks or control characters (quote numbers).',
  'profiles.*.timeout':
    'Time limit of one attempt: milliseconds as a number, or a duration such as 500ms, 30s, 2m, 1m30s or 1.5s; from 1 ms to 2147483647 ms. Default 30s. Env CORE_TIMEOUT, flag --timeout.',
  'profiles.*.retries':
    'How many times a request that cannot deliver twice is repeated after a network failure, a 429 or a 5xx (replies carrying an answerId, reason updates; greetings only with --retry). Default 2.',
  'profiles.*.limits':
    "The server's limits on quick replies, when you know them; quick replies are then checked against them before sending.",
  'profiles.*.limits.maxQuickReplies': "The server's message.max-quick-replies: the most quick replies one message may carry.",
  'profiles.*.limits.maxQuickReplyLength': "The server's message.max-quick-reply-length: the longest text of one quick reply.",
  'profiles.*.proxy':
    'The HTTP proxy for this profile, such as http://proxy.example.com:3128 (http or https; a value without a scheme is taken as http). It wins over HTTPS_PROXY and HTTP_PROXY; NO_PROXY still applies, and loopback hosts are never proxied. A user name and password in it are secrets: core never prints them.',
  'profiles.*.caFile':
    "A PEM file of CA certificates trusted on top of the system's (for a service or proxy behind a private CA); a relative path is taken from the config file's folder. Flag --ca-file.",
};
