import { ExitCode } from '../../errors.js';
import { ENVIRONMENT } from './environment.js';
import { DOCS_URL, TOPICS, type TopicName } from '../help-topics.js';

/**
 * The text of each help topic (`core help environment`, ...), and the data the man page reads for
 * its ENVIRONMENT and EXIT STATUS sections (scripts/docs/man.ts), so both say the same. Plain ASCII:
 * it is printed as is under any locale.
 */

/** Every exit code, by its value in src/errors.ts; test/help/topics.test.ts checks that none is missing. */
export const EXIT_CODES: ReadonlyArray<{ code: number; meaning: string }> = [
  { code: ExitCode.ok, meaning: 'success: the service answered 2xx, or nothing needed sending (--dry-run, --curl, config show)' },
  {
    code: ExitCode.internal,
    meaning:
      'an unexpected internal error (run again with CORE_DEBUG=1 and report it), or the output could not be written; ' +
      'core doctor: a check failed',
  },
  { code: ExitCode.usage, meaning: 'invalid usage, configuration or payload: nothing was sent' },
  { code: ExitCode.testFailed, meaning: 'core test: a conversation failed; core check-bot: a check failed' },
  { code: ExitCode.http4xx, meaning: 'the service answered 4xx (or a redirect, which core does not follow)' },
  { code: ExitCode.http5xx, meaning: 'the service answered 5xx, after the retries' },
  { code: ExitCode.network, meaning: 'no answer: connection, TLS or DNS failure, a proxy that refused, or the time limit ran out' },
  { code: ExitCode.hangup, meaning: 'ended by SIGHUP (the terminal closed)' },
  { code: ExitCode.interrupted, meaning: 'interrupted by Ctrl-C or SIGTERM; a batch reports every item first' },
  { code: ExitCode.brokenPipe, meaning: 'standard output or error closed while the command ran (core ... | head -1)' },
];

const WIDTH = 100;

/** Words filled to lines of at most `width` columns, each line after the first indented by `indent`. */
function fill(text: string, width: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const room = width - (lines.length === 0 ? 0 : indent);
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** A paragraph filled to the page's width. */
function paragraph(text: string): string {
  return fill(text, WIDTH, 0);
}

/** Rows of `name  text`, the text filled beside the names. */
function table(rows: ReadonlyArray<readonly [string, string]>, indent = 2): string {
  const width = Math.max(...rows.map(([name]) => name.length));
  const column = indent + width + 2;
  return rows.map(([name, text]) => `${' '.repeat(indent)}${name.padEnd(width)}  ${fill(text, WIDTH - column, column)}`).join('\n');
}

function environmentText(): string {
  const sections = ENVIRONMENT.map((group) => {
    const rows = group.variables.map(
      (variable) => [variable.names.join(', '), variable.readBy ? `${variable.what} (read by ${variable.readBy})` : variable.what] as const,
    );
    return `${group.title}:\n${table(rows)}`;
  });
  return [
    paragraph(
      'Every environment variable core reads. An empty value counts as unset. A flag wins over its variable, and ' +
        'a variable over the config file (core help config).',
    ),
    ...sections,
    paragraph(
      'A config file may also name variables of your own for its tokens ({env: NAME}); core reads those when a ' +
        'command needs the token. core config show says where each setting came from, and core doctor checks them.',
    ),
  ].join('\n\n');
}

function exitCodesText(): string {
  return [
    paragraph('Every command ends with one of these codes; no other code comes from core itself.'),
    table(EXIT_CODES.map(({ code, meaning }) => [String(code), meaning] as const)),
    paragraph('A batch (core reason update -f FILE) exits 0 when every item succeeded, else with the largest code among its failed items.'),
    `By command:\n${table([
      ['core customer', '0 the bot answered in time; 6 no answer (or a refusal of the bot); 4 the sandbox refused; 2 bad usage'],
      ['core test', '0 every conversation passed; 3 one failed; 6 the bot or the sandbox could not be reached; 2 an invalid test file'],
      ['core check-bot', '0 every check passed; 3 one failed; 6 the bot could not be reached at all; 2 bad usage'],
      ['core doctor', '0 every check passed; 1 one failed (each failure is printed with its fix); 2 bad usage'],
      ['core config check', '0 a send could go out; 2 otherwise, each problem named'],
    ])}`,
    paragraph('Stopping (Ctrl-C, SIGTERM, a closed output) and every case in detail: docs/exit-codes.md.'),
  ].join('\n\n');
}

function configText(): string {
  return [
    paragraph(
      'core reads one config file, YAML or JSON, found by a search from the current folder up to the home folder: ' +
        '.corerc, .corerc.json, .corerc.yaml, .corerc.yml, or the "core" key of package.json; then the user config ' +
        'folder: $XDG_CONFIG_HOME/core/config.yaml (else ~/.config/core/; also config, config.json, config.yml). ' +
        '--config FILE (or CORE_CONFIG) names one file and skips the search; only a file named so may be JavaScript.',
    ),
    paragraph(
      "A file found by the search must be yours (or root's) and writable by you alone, or it is refused: it chooses " +
        'where your token goes and may run a token command.',
    ),
    [
      'defaultProfile: staging',
      'profiles:',
      '  staging:',
      '    baseUrl: https://chat.example.com      # the service',
      '    tenant: acme                           # sent as X-Tenant-Name',
      '    token: {env: CORE_STAGING_TOKEN}       # a string, {env: NAME} or {command: "pass show core"}',
      '    integratorToken: {command: "..."}      # for core reason update; the token when absent',
      '    headers: {X-Extra: value}              # extra request headers',
      "    timeout: 30s                           # one attempt's time limit",
      '    retries: 2                             # 0 to 10',
      '    limits: {maxQuickReplies: 10, maxQuickReplyLength: 40}',
      '    proxy: http://proxy.example.com:3128   # else https_proxy / HTTPS_PROXY',
      "    caFile: ca.pem                         # CA certificates trusted on top of the system's",
    ]
      .map((line) => `  ${line}`)
      .join('\n'),
    paragraph(
      'Which value wins, highest first: a flag (--base-url, --tenant, --timeout, --ca-file, -p), the environment ' +
        '(CORE_BASE_URL, CORE_TENANT, CORE_TOKEN, ...: core help environment), the chosen profile, the default. The ' +
        'profile: -p NAME, else CORE_PROFILE, else defaultProfile, else the only one. With no file at all the ' +
        'environment alone is enough (CI).',
    ),
    `Commands:\n${table([
      ['core config show', 'every setting and where it came from, secrets masked'],
      ['core config check', 'whether a send could go out: each value there, the token resolved'],
      ['core doctor', 'all of that, and the service reached, its clock, the sandbox, the folders'],
      ['core config init', 'write a profile with a guided set-up (the file is made 0600)'],
      ['core config use NAME', 'make NAME the default profile'],
      ['core config path', 'the file in use'],
      ['core schema config', "the file's JSON Schema, for editors"],
    ])}`,
    paragraph('Every key in detail: docs/configuration.md. The options of core config itself: core config --help.'),
  ].join('\n\n');
}

function formatsText(): string {
  return [
    paragraph(
      'The files core reads and writes, and what it prints for programs. Every file core writes is created readable by you alone (0600), and never through a symbolic link of another user.',
    ),
    `Reads:\n${table([
      ['config files', 'YAML or JSON (core help config); JavaScript only when named with --config'],
      [
        '-f FILE, -f -',
        'a payload in JSON or YAML (reply, greet, reason update, api); reason update also reads a JSON array or NDJSON, one reason a line, as a stream',
      ],
      ['--text-file, --markdown-file', 'text as is, UTF-8 (- reads standard input)'],
      ['core test FILE...', 'conversation files in YAML or JSON (core schema test), or folders of them'],
      ['--resume REPORT', 'the NDJSON report of an earlier core reason update'],
      ['--reasons FILE', 'core sandbox: a JSON array of inactivity reasons'],
      ['--ca-file, caFile', 'PEM certificates'],
    ])}`,
    `Writes:\n${table([
      ['--report FILE', 'core reason update: NDJSON, one line per reason with its outcome'],
      ['--output FILE, --reporter NAME=FILE', 'core test and core check-bot: human, junit (JUnit XML), tap (TAP 14) or json'],
      ['--save FILE', 'core greet: the composed payload, JSON'],
      ['--env-file FILE', 'core sandbox: its CORE_* lines (NAME=value) written or updated in place, other lines kept'],
      ['core config init, use', 'the user config file, YAML, comments and order kept'],
      ['$XDG_STATE_HOME/core/', 'the last conversation of core customer say, per base URL (JSON)'],
      ['$XDG_CACHE_HOME/core/', 'the code Node compiled for core, to start faster; safe to delete'],
    ])}`,
    `Prints:\n${table([
      ['--json', 'one JSON document per request on stdout (NDJSON for a batch), nothing else there'],
      ['core sandbox', 'lines a POSIX shell can source: a comment, then export NAME=value lines'],
      ['core schema KIND', 'a JSON Schema (draft 2020-12)'],
      ['core completion SHELL', 'a bash, zsh, fish or PowerShell script'],
    ])}`,
    paragraph(
      'Identifiers typed long are exact JSON numbers up to 9223372036854775807. Details: docs/json-output.md and docs/payloads.md.',
    ),
  ].join('\n\n');
}

function telemetryText(): string {
  return [
    paragraph(
      'core sends nothing anywhere of its own: no usage statistics, no crash reports, no update checks, and no ' +
        'setting turns any of that on. It makes only the requests you ask for: to the base URL you configure (and ' +
        'its proxy), the commands of core api, and, from a sandbox, the webhooks to the --bot-url you give it.',
    ),
    paragraph(
      'What it keeps on this machine is yours: the config file, the last conversation of core customer say ' +
        '($XDG_STATE_HOME/core/) and a compile cache ($XDG_CACHE_HOME/core/), all readable by you alone. core help ' +
        'formats lists every file.',
    ),
  ].join('\n\n');
}

const TEXTS: Record<TopicName, () => string> = {
  environment: environmentText,
  'exit-codes': exitCodesText,
  config: configText,
  formats: formatsText,
  telemetry: telemetryText,
};

/** A topic as `core help <topic>` prints it: a title, the text, where to read more. */
export function topicText(name: TopicName): string {
  const title = `${name.toUpperCase()}: ${TOPICS[name]}`;
  return `${title}\n\n${TEXTS[name]()}\n\nMore: ${DOCS_URL}\n`;
}
