// @ts-check
// JSON that keeps every integer exact, in the browser. The sandbox writes identifiers (coreClientId,
// questionId, userIds, ...) as JSON numbers up to 9223372036854775807, which a JavaScript number
// would round past 2^53. Integers beyond Number.MAX_SAFE_INTEGER are read as BigInt (shown with
// String(), written back with every digit); every other number is a Number.

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * JSON.parse with the reviver of newer engines, which hands it the literal's source text.
 *
 * @typedef {(key: string, value: unknown, context?: { source?: string }) => unknown} SourceReviver
 * @type {(text: string, reviver: SourceReviver) => unknown}
 */
const parseWithSource = JSON.parse;

/** Whether JSON.parse hands its reviver the literal's source text (Chrome 114+, Firefox 135+, Safari 18.4+). */
const hasSource = (() => {
  try {
    let seen = false;
    parseWithSource('1', (_key, value, context) => {
      seen = typeof context?.source === 'string';
      return value;
    });
    return seen;
  } catch {
    return false;
  }
})();

/** @param {string} literal */
const bigOrNumber = (literal) => {
  if (!/^-?\d+$/.test(literal)) return Number(literal);
  const big = BigInt(literal);
  return big > MAX_SAFE || big < -MAX_SAFE ? big : Number(big);
};

/**
 * A mark no text can be expected to hold: a NUL character and a random word, new for each call.
 * Big integers are turned into strings carrying it (to parse on older engines, and to write), then
 * back; a string of the data that happened to hold a fixed mark would be turned into a number.
 */
function newMark() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `\u0000${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}:`;
}

/**
 * Parses JSON text, integers beyond 2^53 as BigInt. What it reads is the caller's to type: the
 * sandbox's answers and events are typed by src/sandbox/events.ts and model.ts (`PageEvent`, ...).
 *
 * @param {string} text
 * @returns {any}
 */
export function parseJson(text) {
  if (hasSource) {
    return parseWithSource(text, (_key, value, context) =>
      typeof value === 'number' && context?.source !== undefined ? bigOrNumber(context.source) : value,
    );
  }
  // Older engines: quote every integer of 16 digits or more outside strings, then read it back.
  const mark = newMark();
  const escaped = JSON.stringify(mark).slice(1, -1);
  const quoted = text.replace(
    /("(?:[^"\\]|\\.)*")|(?<![.\d])(-?\d{16,})(?![.eE\d])/g,
    (/** @type {string} */ _match, /** @type {string | undefined} */ string, /** @type {string} */ number) =>
      string ? string : `"${escaped}${number}"`,
  );
  return JSON.parse(quoted, (_key, /** @type {unknown} */ value) =>
    typeof value === 'string' && value.startsWith(mark) ? bigOrNumber(value.slice(mark.length)) : value,
  );
}

/**
 * Writes JSON, BigInts as plain numbers with every digit.
 *
 * @param {unknown} value
 * @param {number} [indent]
 * @returns {string}
 */
export function stringifyJson(value, indent) {
  const mark = newMark();
  const escaped = JSON.stringify(mark)
    .slice(1, -1)
    .replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  return JSON.stringify(value, (_key, /** @type {unknown} */ v) => (typeof v === 'bigint' ? `${mark}${v}` : v), indent).replace(
    new RegExp(`"${escaped}(-?\\d+)"`, 'g'),
    '$1',
  );
}
