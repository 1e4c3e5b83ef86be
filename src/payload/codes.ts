/**
 * The values of a bot answer's code (docs/api.md, answer rule 2) and what each hands to agents, in the
 * API's order: the one list the payload schema, `core reply --code`, the composer, completion,
 * `core test` and its coverage read. A leaf with no zod, so a command's definition can name the codes
 * at start-up.
 */
const HANDS_OVER = {
  /** The bot did not understand the question: the question goes to an agent. */
  UNCLEAR_QUESTION: 'question',
  /** The dialog moves to agents: the thread leaves the bot. */
  SWITCH_TO_HUMAN: 'thread',
  /** The bot handled the message itself. */
  SUCCESS: null,
} as const;

export type Code = keyof typeof HANDS_OVER;

/** The codes in the API's order (docs/api.md, "Values of code"). */
export const CODES = Object.keys(HANDS_OVER) as readonly Code[] as readonly [Code, ...Code[]];

/** What an answer with this code hands to agents: one question, the whole thread, or nothing. */
export function handsOver(code: Code): 'question' | 'thread' | null {
  return HANDS_OVER[code];
}

/**
 * The codes as core lists them to people (`core reply --help`, a test file's schema, coverage): the
 * code of an answer the bot handled itself first, then those that hand over, in the API's order.
 */
export const CODES_HANDLED_FIRST: readonly Code[] = [
  ...CODES.filter((code) => handsOver(code) === null),
  ...CODES.filter((code) => handsOver(code) !== null),
];

/** action (docs/api.md, chatbot rule 5): INIT_CHAT is the only value shown; other allowed values are not shown (gap 4). */
export const KNOWN_ACTIONS = ['INIT_CHAT'] as const;
