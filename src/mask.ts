/**
 * Masking secrets by value in everything core prints (docs/security.md, "The masking rule"). A leaf
 * module: the context uses it for every write, the config code to refuse a token it could not mask.
 *
 * 1. Only a *distinctive* value is masked by value (`maskProblem` says why one is not): at least 8
 *    characters and not a number. A shorter value (`true`, `1234`, `chatbot`) could also be ordinary
 *    output, and masking it would corrupt what is printed. So core refuses such a token outright
 *    (src/config/token.ts), and masks any other such secret (a short header value) by field only,
 *    where it prints the header.
 * 2. A distinctive value is masked in every form in which it can reach the output: as is, in upper
 *    and in lower case, base64 (standard and URL alphabets, at each of the three alignments it can
 *    have inside a longer base64 text, as in `Basic base64(user:token)`) and hex (either case) of its
 *    UTF-8 bytes, and of its Latin-1 bytes when it has no character beyond Latin-1, as a header value
 *    is sent (`secretForms`); and each of those with any of its characters written as a JSON escape
 *    (`\"`, `\\`, `\u002b`, `\/`) or a URL escape (`%2B`, `%C3%A4`, `%E4`). A value is trimmed before it is
 *    registered: a server trims a header value, and echoes it so. Every occurrence of every form is
 *    masked, overlapping ones included: one secret's tail after another's match is masked too.
 * 3. A JSON document is masked by structure, not as text: every key and string of the value is
 *    masked before it is written as JSON (`redactValue`), so the document stays valid JSON whatever
 *    the secret holds; numbers, booleans and null are never touched. Free text (the human views,
 *    messages) is masked as text (`redact`).
 */

export const MASK = '********';

/** The shortest value masked by value: `true`, `false`, `null` and `chatbot` are shorter. */
export const MIN_MASKED_LENGTH = 8;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A value made only of these could be part of a number: 1e9, -2.5, 9223372036854775807. */
const NUMBER_ONLY = /^[0-9.+\-eE]+$/;
/** Text a header value can be: Latin-1 only, sent one byte a character (src/config/schema.ts). */
const LATIN1_ONLY = /^[\u0000-\u00ff]*$/;

/**
 * The keys and labels core prints that are long enough to be masked (docs/json-output.md): a result's
 * keys (checked against `RequestResult` in src/output/result.ts, so that a new key cannot be missed),
 * the service's error record's, and the words of the human views and of `config show`. A secret
 * equal to one of them would mask it wherever it is printed, so none is masked by value: a token
 * equal to one is refused (src/config/token.ts), a header value masked by field only.
 */
export const PRINTED_KEYS = [
  'ok',
  'status',
  'method',
  'url',
  'requestId',
  'durationMs',
  'answerId',
  'code',
  'error',
  'validationErrors',
  'attempts',
  'retryAfterMs',
  'warning',
  'skipped',
  'resumed',
  'body',
  'timestamp',
  'uri',
  'message',
  'dryRun',
  'headers',
  'token',
  'integratorToken',
  'integrator',
  'baseUrl',
  'tenant',
  'profile',
  'duration',
  'request id',
] as const;

const PRINTED = new Set(PRINTED_KEYS.map((key) => key.toLowerCase()));

/** Why `value` cannot be masked by value without masking ordinary text too, or undefined when it can. */
export function maskProblem(value: string): string | undefined {
  const text = value.trim();
  if (text === '') return 'is empty';
  if (CONTROL.test(text)) return 'holds a line break or control character';
  if (text.length < MIN_MASKED_LENGTH) return `is shorter than ${MIN_MASKED_LENGTH} characters`;
  if (NUMBER_ONLY.test(text)) return 'is a number';
  if (PRINTED.has(text.toLowerCase())) return 'is a key or label that core prints';
  return undefined;
}

export interface Mask {
  /**
   * Registers a value to mask from now on; false (nothing registered) when it is not distinctive
   * (see `maskProblem`), so that it is masked by field only.
   */
  add(value: string): boolean;
  /** Masks every registered value, in each of its forms, in `text`. */
  redact(text: string): string;
  /**
   * Masks `text` as `redact` does, and also its end when that is the start of a registered value:
   * for a text that was cut short (a body read up to a limit), where a secret may stand cut in two.
   */
  redactCutEnd(text: string): string;
  /** A copy of a JSON value with every key and string masked; other values as they are. */
  redactValue<T>(value: T): T;
  /**
   * Whether `text` can hold a registered value in any form (see `mayHold`). When it cannot, `redact`
   * returns it as it is, and a JSON document written as `text` has no key or string to mask.
   */
  mayHold(text: string): boolean;
}

/**
 * Whether `text` can hold one of `forms` (see `secretForms`) in one of the ways `redact` masks: a
 * quick test that spares the expression the text of nearly every line core prints. Every way of
 * writing a character other than the character itself (`\u002b`, `\/`, `%2B`) starts with a
 * backslash or a percent sign, and so does the run of backslashes a match may start after; so a
 * text with neither holds a form only as it is. For JSON written without a single backslash, every
 * key and string is in the text as it is, so none of them holds a secret either.
 */
export function mayHold(text: string, forms: Iterable<string>): boolean {
  if (text.includes('\\') || text.includes('%')) return true;
  for (const form of forms) if (text.includes(form)) return true;
  return false;
}

/**
 * The forms of a registered value that a service may echo, each distinctive itself (a hex form
 * made only of digits would look like a number, and is left out): the value, its upper- and
 * lower-case forms, its base64 and base64url forms, and its hex forms in either case. The encoded
 * forms are of its UTF-8 bytes and, for a value with no character beyond Latin-1, of its Latin-1
 * bytes too (the same bytes for ASCII): a header value is sent so, one byte a character.
 */
export function secretForms(value: string): string[] {
  const encodings = [Buffer.from(value)];
  if (LATIN1_ONLY.test(value)) encodings.push(Buffer.from(value, 'latin1'));
  const base64 = encodings.flatMap((bytes) => [0, 1, 2].map((shift) => base64Inside(bytes, shift)));
  const candidates = [
    value,
    value.toUpperCase(),
    value.toLowerCase(),
    ...base64,
    ...base64.map((text) => text.replace(/\+/g, '-').replace(/\//g, '_')),
  ];
  // A hex form is left out only when made of digits alone: `5e5e5e5e5e5e5e5e` (of `^^^^^^^^`) reads as
  // a number to the rule for values, but no number core prints is written so.
  const hexForms = encodings.map((bytes) => bytes.toString('hex')).flatMap((hex) => (/^[0-9]+$/.test(hex) ? [] : [hex, hex.toUpperCase()]));
  return [...new Set([...candidates.filter((form) => maskProblem(form) === undefined), ...hexForms])];
}

/**
 * The base64 characters of `bytes` that do not depend on what comes around them when they start
 * `shift` bytes (0, 1 or 2) into a longer base64 text: the characters that also hold bits of the
 * bytes before them, or of those after them (or of the padding), are left out.
 */
function base64Inside(bytes: Buffer, shift: number): string {
  const text = Buffer.concat([Buffer.alloc(shift), bytes])
    .toString('base64')
    .replace(/=+$/, '');
  // 8 bits a byte, 6 a character: the bits of `shift` leading bytes reach into ceil(8 * shift / 6) characters.
  const head = Math.ceil((8 * shift) / 6);
  // The last character is partial unless the bytes end on a 3-byte boundary.
  const tail = (shift + bytes.length) % 3 === 0 ? 0 : 1;
  return text.slice(head, text.length - tail);
}

export function createMask(): Mask {
  const secrets = new Set<string>();
  let forms: string[] = [];
  let compiled: { any: RegExp; each: RegExp[] } | undefined;
  return {
    add(value) {
      const text = value.trim();
      if (maskProblem(text) !== undefined) return false;
      if (!secrets.has(text)) {
        secrets.add(text);
        forms = [...new Set([...secrets].flatMap(secretForms))];
        compiled = undefined;
      }
      return true;
    },
    redact,
    redactCutEnd(text) {
      const masked = redact(text);
      const start = cutSecretStart(masked, forms);
      return start === undefined ? masked : `${masked.slice(0, start)}${MASK}`;
    },
    redactValue: <T>(value: T): T => (secrets.size === 0 ? value : (maskValue(value, redact) as T)),
    mayHold: (text) => secrets.size > 0 && mayHold(text, forms),
  };
  function redact(text: string): string {
    if (secrets.size === 0 || !mayHold(text, forms)) return text;
    compiled ??= { any: compile(forms), each: forms.map(occurrences) };
    if (!compiled.any.test(text)) return text;
    return maskRanges(text, compiled.each);
  }
}

/**
 * The shortest start of a secret masked at the end of a text cut short: a cut that leaves one or two
 * of its characters tells nothing of it, and masking every text that happens to end in a secret's
 * first character would mark one cut in six as holding a secret.
 */
export const MIN_CUT_START = 3;

/**
 * Where the start of one of `forms` begins at the end of `text` (as it is, not escaped), of at least
 * `MIN_CUT_START` characters, up to the whole form (which `redact` leaves after a lone backslash, as
 * the end of an escape): the longest such start wins.
 */
function cutSecretStart(text: string, forms: string[]): number | undefined {
  let found: number | undefined;
  for (const form of forms) {
    for (let length = form.length; length >= MIN_CUT_START; length -= 1) {
      if (text.endsWith(form.slice(0, length))) {
        const start = text.length - length;
        if (found === undefined || start < found) found = start;
        break;
      }
    }
  }
  return found;
}

/**
 * Masks every occurrence of every form (there is at least one: `compiled.any` found it), overlapping ones as one: with `abcdefgh` and `abcdefgh-tail`
 * registered, `abcdefgh` matches first in `xabcdefghabcdefgh-tail`, and the tail of the other is
 * masked too. A scan a form finds each occurrence wherever it starts; only a text that holds a
 * secret gets here.
 */
function maskRanges(text: string, each: RegExp[]): string {
  const ranges: Array<[number, number]> = [];
  for (const pattern of each) {
    for (const match of text.matchAll(pattern)) ranges.push([match.index, match.index + match[1]!.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let end = 0;
  for (const [start, stop] of ranges) {
    if (start < end) {
      end = Math.max(end, stop);
      continue;
    }
    if (end > 0) out += MASK;
    out += text.slice(end, start);
    end = stop;
  }
  return `${out}${MASK}${text.slice(end)}`;
}

/** Masks the strings and keys of plain objects and arrays; anything else (bigint, a class instance) is kept. */
function maskValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => maskValue(item, redact));
  if (typeof value !== 'object' || value === null) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a key such as __proto__ stays an own key, as JSON has it.
    Object.defineProperty(copy, redact(key), { value: maskValue(item, redact), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * Where a match may start: after an even run of backslashes (none included), so that a match never
 * begins inside an escape such as `\n`.
 */
const START = '(?<=(?<!\\\\)(?:\\\\\\\\)*)';

/** A form with each of its characters written in any of its ways (`characterForms`). */
function written(form: string): string {
  return [...form].map(characterForms).join('');
}

/** One expression for every form: whether a text holds any of them, from where a match may start. */
export function compile(forms: string[]): RegExp {
  return new RegExp(`${START}(?:${forms.map(written).join('|')})`);
}

/** Every start of `form` in a text, with how far it reaches (group 1): overlapping ones included. */
function occurrences(form: string): RegExp {
  return new RegExp(`${START}(?=(${written(form)}))`, 'g');
}

/**
 * The forms of one character: itself, its JSON escapes (`\u002b`, `\"`, `\\`, `\/`; `\ud83d\ude00`
 * beyond U+FFFF), its URL % escape as UTF-8 (`%2B`, `%C3%A4`) and, for a Latin-1 character, as its
 * Latin-1 byte (`%E4`, as a header value is sent).
 */
function characterForms(character: string): string {
  const code = character.codePointAt(0)!;
  const literal = character.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const forms = [literal, jsonEscaped(character), percentEscaped(Buffer.from(character))];
  if (code <= 0xff) forms.push(percentEscaped(Buffer.from([code])));
  if (character === '/' || character === '"' || character === '\\') forms.push(`\\\\${literal}`);
  return `(?:${forms.join('|')})`;
}

/** A character as JSON \u escapes of its UTF-16 code units, in either case: two for one beyond U+FFFF. */
function jsonEscaped(character: string): string {
  let escaped = '';
  for (let index = 0; index < character.length; index += 1) {
    escaped += `\\\\u${hexForms(character.charCodeAt(index).toString(16).padStart(4, '0'))}`;
  }
  return escaped;
}

/** Bytes as URL % escapes, in either case: `%c3%a4` and `%C3%A4`. */
function percentEscaped(bytes: Iterable<number>): string {
  return [...bytes].map((byte) => `%${hexForms(byte.toString(16).padStart(2, '0'))}`).join('');
}

/** Hex digits in either case: `2b` matches 2b, 2B. */
function hexForms(hex: string): string {
  return [...hex].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('');
}

/**
 * Which header values may be printed (docs/security.md, "The masking rule"). One rule for every
 * place that prints headers: --dry-run, --verbose, --curl and config show.
 *
 * A request header's value is shown only when its name is on a short list of headers that never
 * carry a credential: core's own (Accept, Content-Type, User-Agent, X-Tenant-Name) and the
 * content-negotiation ones a profile may add. Every other value is masked, the token's
 * Authorization and every other header a profile adds: a rule by name could not guess every
 * gateway's name for its key (X-Gateway-Key, X-JWT, X-Client-Credential, ...), a list of the safe
 * ones cannot miss. Each masked value is also registered, so that no echo of it is printed either.
 */
const SHOWN_REQUEST_HEADERS = new Set([
  'accept',
  'accept-charset',
  'accept-encoding',
  'accept-language',
  'content-type',
  'user-agent',
  'x-tenant-name',
]);

/** Whether a request header's value may be printed. */
export function isShownRequestHeader(name: string): boolean {
  return SHOWN_REQUEST_HEADERS.has(name.toLowerCase());
}

/**
 * A masked header value: ********, after the scheme word of a standard credential (`Bearer
 * ********`). Any other first word stays masked: it may be part of the secret.
 */
export function maskedHeaderValue(value: string): string {
  const scheme = /^(Bearer|Basic|Token|Digest)\s/i.exec(value.trim());
  return scheme ? `${scheme[1]} ${MASK}` : MASK;
}

/** The names of the headers whose values are shown, for messages and docs. */
export const SHOWN_HEADER_NAMES = [
  'Accept',
  'Accept-Charset',
  'Accept-Encoding',
  'Accept-Language',
  'Content-Type',
  'User-Agent',
  'X-Tenant-Name',
];

const MASKED = Symbol('masked text');

/**
 * Text already masked by structure (a JSON document written by `Context.json`), which the context's
 * writers print as it is: a second, textual pass could only find false matches across its syntax.
 */
export interface MaskedText {
  readonly [MASKED]: true;
  readonly text: string;
}

/** Marks text as masked: for the context, which made it from a masked value. */
export function maskedText(text: string): MaskedText {
  return { [MASKED]: true, text };
}

export function isMaskedText(value: unknown): value is MaskedText {
  return typeof value === 'object' && value !== null && MASKED in value;
}
