import { LosslessNumber } from 'lossless-json';

/**
 * A number whose written digits a JavaScript number does not keep, where that is easy to miss: it is
 * written with a fraction or an exponent and read as an integer that is not the one written.
 * `1.9999999999999999` reads as 2, `5001.0000000000000001` as 5001, `1e-400` as 0. An identifier
 * (docs/api.md, identifier rule) must keep every digit, as one past 2^53 must; so the readers of what
 * holds identifiers (payload files, test files, the sandbox's API: `parseJson(text, { inexact: true })`
 * and the YAML readers with `inexactFloatTags`) keep such a number as this value, and the validators
 * refuse it where a number is expected, naming what was written (long.ts, messages.ts). A number that
 * is written exactly (`5001.0`, `5e3`), or is not an integer once read (`1.5`), stays a number.
 *
 * It is a LosslessNumber, so the lossless JSON writer writes it back as written (a refused body kept by
 * the sandbox shows what the bot sent), and `valueOf()` gives the number it reads as.
 */
export class InexactNumber extends LosslessNumber {
  constructor(
    written: string,
    /** The number the text reads as. */
    readonly read: number,
  ) {
    super(written);
  }

  override valueOf(): number {
    return this.read;
  }
}

const LITERAL = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/;

/** The largest a double can be written in plain digits is 309 digits long: any more is not one. */
const MAX_INTEGER_DIGITS = 310;

/** Whether `literal` (a number written in decimal, with a fraction or an exponent) is exactly the integer `n`. */
export function writesExactly(literal: string, n: number): boolean {
  const match = LITERAL.exec(literal);
  if (match === null || !Number.isInteger(n)) return false;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return n === 0;
  const significant = digits.replace(/0+$/, '');
  // The value is significant × 10^shift.
  const shift = Number(exponent) - fraction.length + (digits.length - significant.length);
  if (shift < 0) return false;
  if (significant.length + shift > MAX_INTEGER_DIGITS) return false;
  const value = BigInt(`${significant}${'0'.repeat(shift)}`);
  return (sign === '-' ? -value : value) === BigInt(n);
}

/** A number literal as JSON writes it (YAML also allows `+1.5`, `.5` and `5.`). */
function asJson(literal: string): string {
  const match = LITERAL.exec(literal);
  if (match === null) return literal;
  const [, sign = '', whole = '', fraction, exponent] = match;
  return `${sign === '-' ? '-' : ''}${whole === '' ? '0' : whole}${fraction ? `.${fraction}` : ''}${exponent === undefined ? '' : `e${exponent}`}`;
}

/** A number literal with a fraction or an exponent, read: the number, or an InexactNumber when its digits are lost to an integer. */
export function readNumber(literal: string, value = Number(literal)): number | InexactNumber {
  if (!Number.isInteger(value) || writesExactly(literal, value)) return value;
  return new InexactNumber(asJson(literal), value);
}

/**
 * The most digits an integer is read with as a bigint. V8 turns a decimal text into a bigint, and a
 * bigint back into text, in a time that grows with the square of its length: a million digits took
 * 1.4 s to read and 2.5 s to write, so a 1 MB body held the sandbox for seconds. An identifier has at
 * most 19 digits; a longer integer is kept as written (a LosslessNumber), which the lossless writer
 * writes back as is, messages cut (messages.ts), and validation refuses as it refuses any number out
 * of range.
 */
export const MAX_BIGINT_DIGITS = 64;

/** An integer literal as read: a bigint, or, past MAX_BIGINT_DIGITS digits, the literal kept as written. */
export function readInteger(literal: string): bigint | LosslessNumber {
  const plain = literal.startsWith('+') ? literal.slice(1) : literal;
  const digits = plain.startsWith('-') ? plain.length - 1 : plain.length;
  return digits > MAX_BIGINT_DIGITS && /^-?\d+$/.test(plain) ? new LosslessNumber(plain) : BigInt(plain);
}

/** A YAML tag as the `yaml` library describes one: only what is changed here. */
interface YamlTag {
  tag: string;
  resolve: (source: string, ...rest: never[]) => unknown;
}

/**
 * The `yaml` library's tags (its `customTags` option) with its float tags reading a number whose
 * digits are lost to an integer as an InexactNumber (`.nan` and `.inf` are no integer: unchanged), and
 * its integer tags reading a decimal integer of more than MAX_BIGINT_DIGITS digits as written.
 */
export function inexactFloatTags<T>(tags: T[]): T[] {
  return tags.map((tag) => {
    const described = tag as unknown as YamlTag;
    const resolve = described.resolve;
    if (described.tag === 'tag:yaml.org,2002:int') {
      return {
        ...described,
        resolve: (source: string, ...rest: never[]) =>
          source.length > MAX_BIGINT_DIGITS && /^[-+]?\d+$/.test(source) ? readInteger(source) : resolve(source, ...rest),
      } as unknown as T;
    }
    if (described.tag !== 'tag:yaml.org,2002:float') return tag;
    return {
      ...described,
      resolve: (source: string, ...rest: never[]) => {
        const resolved = resolve(source, ...rest);
        const value = typeof resolved === 'number' ? resolved : (resolved as { value?: unknown } | null)?.value;
        return typeof value === 'number' && Number.isInteger(value) && !writesExactly(source, value) ? readNumber(source, value) : resolved;
      },
    } as unknown as T;
  });
}
