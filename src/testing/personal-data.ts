/**
 * Personal data in a saved conversation (docs/bridge.md, "Tests from real conversations"): e-mail
 * addresses, card-like numbers and phone numbers in its texts replaced with placeholders of the same
 * shape, the same value always by the same placeholder (a bot that repeats the customer's address
 * repeats the placeholder when the test runs).
 */

const EMAIL = String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`;
/** 13 to 19 digits, single spaces or dashes between them: a payment card's number. */
const CARD = String.raw`(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)`;
/** 8 to 15 digits with an optional leading + or ( and the usual separators: a phone number. */
const PHONE = String.raw`(?<![\w+(])\+?\(?\d(?:[ ().-]{0,2}\d){7,14}(?!\d)`;
/** One pass, so that a placeholder is never read again as another kind. */
const PERSONAL = new RegExp(`(${EMAIL})|(${CARD})|(${PHONE})`, 'g');

export class PersonalDataMask {
  private readonly seen = new Map<string, string>();
  private counts = { email: 0, card: 0, phone: 0 };

  /** The text with every e-mail address, card-like number and phone number replaced. */
  mask(text: string): string {
    return text.replace(PERSONAL, (found: string, email?: string, card?: string) =>
      this.placeholder(email !== undefined ? 'email' : card !== undefined ? 'card' : 'phone', found),
    );
  }

  /** How many values were replaced, by kind. */
  get replaced(): Readonly<Record<'email' | 'card' | 'phone', number>> {
    return this.counts;
  }

  private placeholder(kind: 'email' | 'card' | 'phone', found: string): string {
    const key = `${kind}:${found}`;
    const known = this.seen.get(key);
    if (known !== undefined) return known;
    const n = ++this.counts[kind];
    const made =
      kind === 'email'
        ? `person-${n}@example.com`
        : kind === 'card'
          ? `0000 0000 0000 ${String(n).padStart(4, '0')}`
          : `+1 555 01${String(n % 100).padStart(2, '0')}`;
    this.seen.set(key, made);
    return made;
  }
}
