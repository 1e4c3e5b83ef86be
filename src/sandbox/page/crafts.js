// @ts-check
// The deliveries the sandbox crafts on purpose (POST /_sandbox/probes, src/sandbox/probe.ts, which
// `core check-bot` drives): their names, what each one changes, and which of them a bot that verifies
// its deliveries must refuse. One copy: the sandbox names the craft in the webhook.attempt event of
// each crafted attempt, and the page says from here what was crafted and whether the bot was right.

/** The crafts of POST /_sandbox/probes. */
export const CRAFTS = /** @type {const} */ ([
  'signed',
  'unsigned',
  'tampered',
  'wrong-secret',
  'rotation',
  'stale',
  'future',
  'unknown-fields',
  'raw-body',
  'large-ids',
  'replay',
  'fuzz',
]);

/** @typedef {(typeof CRAFTS)[number]} Craft */

/** How far from now the stale and future timestamps are: twice the five minutes Standard Webhooks tolerates. */
export const SKEW_SECONDS = 600;

const skew = `${SKEW_SECONDS / 60} minutes`;

/**
 * What each craft made of the delivery, and for those a bot must refuse, what is wrong with it: a
 * bot that answers such a delivery 2xx took a forged or stale message as the customer's.
 *
 * @type {Readonly<Record<Craft, { what: string, flaw: string | null }>>}
 */
export const CRAFT_WORDS = {
  signed: { what: 'correctly signed', flaw: null },
  unsigned: { what: 'sent without the webhook-* headers', flaw: 'it carries no signature' },
  tampered: { what: 'its body changed after signing (a tampered signature)', flaw: 'its signature does not match its body' },
  'wrong-secret': { what: 'signed with another secret', flaw: 'its signature was made with another secret' },
  rotation: { what: 'two signatures, one with an unknown secret, then the valid one', flaw: null },
  stale: { what: `signed with a timestamp ${skew} old`, flaw: `its timestamp is ${skew} old` },
  future: { what: `signed with a timestamp ${skew} ahead`, flaw: `its timestamp is ${skew} ahead` },
  'unknown-fields': { what: 'with fields and a header no version of the webhook has', flaw: null },
  'raw-body': { what: 'as bytes a re-serialiser changes (spaces, key order, \\u escapes, a 3.0), signed as sent', flaw: null },
  'large-ids': { what: 'with identifiers above 2^53', flaw: null },
  replay: { what: 'a replay: a delivery sent before, again (same webhook-id and body, new timestamp and signature)', flaw: null },
  fuzz: { what: 'shaped by core check-bot --fuzz (files, unknown fields, JSON written another way)', flaw: null },
};

/**
 * What a crafted attempt was, in words; null for an ordinary one (or a craft this page does not know).
 *
 * @param {{ craft?: string | null }} attempt
 * @returns {{ craft: Craft, what: string, flaw: string | null } | null}
 */
export function craftOf(attempt) {
  const craft = attempt.craft;
  if (typeof craft !== 'string' || !Object.hasOwn(CRAFT_WORDS, craft)) return null;
  const words = CRAFT_WORDS[/** @type {Craft} */ (craft)];
  return { craft: /** @type {Craft} */ (craft), ...words };
}

/**
 * The bot's mistake when it accepted (2xx) a delivery it must refuse, in words; null when the attempt
 * is ordinary, of a craft to accept, or was refused (or not answered).
 *
 * @param {{ craft?: string | null, status: number | null }} attempt
 * @returns {string | null}
 */
export function acceptedForgery(attempt) {
  const crafted = craftOf(attempt);
  const status = attempt.status;
  if (crafted === null || crafted.flaw === null || status === null || status < 200 || status >= 300) return null;
  return `the bot accepted this delivery (${status}), but ${crafted.flaw}: it should refuse it with 401`;
}
