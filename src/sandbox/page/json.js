// JSON that keeps every integer exact, in the browser. The sandbox writes identifiers (coreClientId,
// questionId, userIds, ...) as JSON numbers up to 9223372036854775807, which a JavaScript number
// would round past 2^53. Integers beyond Number.MAX_SAFE_INTEGER are read as BigInt (shown with
// String(), written back with every digit); every other number is a Number.

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether JSON.parse hands its reviver the literal's source text (Chrome 114+, Firefox 135+, Safari 18.4+). */
const hasSource = (() => {
  try {
    let seen = false;
    JSON.parse('1', (_key, value, context) => {
      seen = typeof context?.source === 'string';
      return value;
    });
    return seen;
  } catch {
    return false;
  }
})();

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

/** Parses JSON text, integers beyond 2^53 as BigInt. */
export function parseJson(text) {
  if (hasSource) {
    return JSON.parse(text, (_key, value, context) =>
      typeof value === 'number' && context?.source !== undefined ? bigOrNumber(context.source) : value,
    );
  }
  // Older engines: quote every integer of 16 digits or more outside strings, then read it back.
  const mark = newMark();
  const escaped = JSON.stringify(mark).slice(1, -1);
  const quoted = text.replace(/("(?:[^"\\]|\\.)*")|(?<![.\d])(-?\d{16,})(?![.eE\d])/g, (match, string, number) =>
    string ? string : `"${escaped}${number}"`,
  );
  return JSON.parse(quoted, (_key, value) =>
    typeof value === 'string' && value.startsWith(mark) ? bigOrNumber(value.slice(mark.length)) : value,
  );
}

/** Writes JSON, BigInts as plain numbers with every digit. */
export function stringifyJson(value, indent) {
  const mark = newMark();
  const escaped = JSON.stringify(mark)
    .slice(1, -1)
    .replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${mark}${v}` : v), indent).replace(
    new RegExp(`"${escaped}(-?\\d+)"`, 'g'),
    '$1',
  );
}
