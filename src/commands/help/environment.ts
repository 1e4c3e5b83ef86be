/**
 * Every environment variable core reads, for `core help environment` and the man page's ENVIRONMENT
 * section. test/help/environment.test.ts reads the sources for the variables they read and fails
 * when this list and the code differ, so a new variable is documented when it is added.
 */

export interface Variable {
  /** The names, read in this order (the first set wins): `https_proxy`, then `HTTPS_PROXY`. */
  names: readonly string[];
  what: string;
  /**
   * Who reads it when core does not itself: Node (`os.tmpdir()` reads TMPDIR) or a library core
   * bundles (the composer's editor reads VISUAL and EDITOR).
   */
  readBy?: 'Node' | 'the editor prompt';
}

export interface VariableGroup {
  title: string;
  variables: readonly Variable[];
}

export const ENVIRONMENT: readonly VariableGroup[] = [
  {
    title: 'Settings (flags win over these, these over the config file)',
    variables: [
      { names: ['CORE_CONFIG'], what: 'the config file to use; skips the search (like --config)' },
      { names: ['CORE_PROFILE'], what: 'the profile to use (like -p)' },
      { names: ['CORE_BASE_URL'], what: "the service's base URL (like --base-url)" },
      { names: ['CORE_TENANT'], what: 'the tenant, sent as X-Tenant-Name (like --tenant)' },
      { names: ['CORE_TOKEN'], what: "the bot's access token; no flag takes it, as flags leak into shell history and process lists" },
      { names: ['CORE_INTEGRATOR_TOKEN'], what: 'the token of core reason update; the token when unset' },
      { names: ['CORE_TIMEOUT'], what: 'the time limit of one attempt, such as 10s (like --timeout)' },
      {
        names: ['CORE_SANDBOX_WEBHOOK_SECRET'],
        what: 'the whsec_... secret the sandbox (core sandbox, and the one core test and core check-bot start) signs webhooks with',
      },
      {
        names: ['CORE_WEBHOOK_SECRET'],
        what: "the secret your bot verifies webhooks with, as core sandbox prints it: core doctor checks that it is the sandbox's",
      },
    ],
  },
  {
    title: 'Output',
    variables: [
      { names: ['NO_COLOR'], what: 'any value but empty: no colour (as --no-color)' },
      { names: ['FORCE_COLOR'], what: 'colour even when the output is not a terminal; 0 or false: none' },
      { names: ['TERM'], what: 'dumb: no colour and no progress bar' },
      {
        names: ['LC_ALL', 'LC_CTYPE', 'LANG'],
        what: 'the first one set names the character encoding; under one that is not UTF-8 (C, POSIX, en_US.ISO-8859-1) core draws its marks, arrows, boxes and ellipses in ASCII (ok, x, ->, +--+, ...)',
      },
      { names: ['CORE_DEBUG'], what: '1 or true: the stack trace of an unexpected error (never a secret)' },
    ],
  },
  {
    title: 'Network',
    variables: [
      { names: ['https_proxy', 'HTTPS_PROXY'], what: "the proxy for an https base URL (a profile's proxy wins)" },
      {
        names: ['http_proxy', 'HTTP_PROXY'],
        what: 'the proxy for an http base URL; HTTP_PROXY is ignored when REQUEST_METHOD is set (CGI)',
      },
      { names: ['no_proxy', 'NO_PROXY'], what: 'hosts reached directly, comma-separated (.example.com, *, 10.0.0.0/8)' },
      { names: ['REQUEST_METHOD'], what: "set under CGI, where HTTP_PROXY comes from a request's Proxy header: then it is not read" },
      { names: ['NODE_EXTRA_CA_CERTS'], what: "a PEM file of CA certificates trusted on top of the system's (as Node reads it)" },
    ],
  },
  {
    title: 'Folders',
    variables: [
      {
        names: ['HOME', 'USERPROFILE'],
        what: 'the home folder: the config search stops there; ~/.config, ~/.cache, ~/.local/share and ~/.local/state are in it',
      },
      { names: ['XDG_CONFIG_HOME'], what: 'the user config folder is $XDG_CONFIG_HOME/core (else ~/.config/core)' },
      { names: ['XDG_CACHE_HOME'], what: 'the compile cache is in $XDG_CACHE_HOME/core (else ~/.cache/core)' },
      {
        names: ['XDG_DATA_HOME'],
        what: 'core sandbox keeps its webhook secret in $XDG_DATA_HOME/core/webhook-secret (else ~/.local/share/core)',
      },
      { names: ['XDG_STATE_HOME'], what: 'core customer --session last is kept in $XDG_STATE_HOME/core (else ~/.local/state/core)' },
      { names: ['CORE_NO_COMPILE_CACHE'], what: '1: neither read nor write the compile cache' },
      { names: ['TMPDIR'], what: 'where core reason update -f - keeps its copy of standard input', readBy: 'Node' },
    ],
  },
  {
    title: 'Programs',
    variables: [
      { names: ['BROWSER'], what: "the browser core sandbox --open starts (else the system's opener)" },
      { names: ['VISUAL', 'EDITOR'], what: 'the editor the composer (-i) opens for a long text', readBy: 'the editor prompt' },
    ],
  },
];

/** Every name the list documents, in order. */
export function documentedNames(): string[] {
  return ENVIRONMENT.flatMap((group) => group.variables.flatMap((variable) => variable.names));
}
