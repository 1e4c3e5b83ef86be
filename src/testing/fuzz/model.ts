import type { Channel } from '../../payload/channels.js';

/**
 * What `core check-bot --fuzz` generates (docs/check-bot.md, "Fuzzing"): conversations of MESSAGE
 * deliveries, as plain data that names every choice, so that a seed and a path (fast-check's) give
 * back exactly one conversation, and a conversation saved as a file replays without fast-check.
 * Nothing here imports fast-check: the arbitraries that make these values are in arbitraries.ts.
 */

/** The classes of text that break software, each a list of pieces from the simplest up (texts.ts). */
export const TEXT_CLASSES = ['ascii', 'emoji', 'zwj', 'rtl', 'bidi', 'combining', 'control', 'nul', 'surrogate', 'markup', 'wide'] as const;
export type TextClass = (typeof TEXT_CLASSES)[number];

/** A run of one piece of a class: `repeat` times the `pick`-th piece of `cls` (taken modulo the class's size). */
export interface TextSegment {
  cls: TextClass;
  pick: number;
  repeat: number;
}

/**
 * A text: its segments, then plain letters up to `length` UTF-16 units when the segments are shorter,
 * all cut to the customer text's bound (4,000). An empty text only with attachments (`blank`).
 */
export interface TextSpec {
  segments: TextSegment[];
  length: number;
  blank: boolean;
}

/** How the delivery's JSON is written: every form is valid JSON that a re-serialiser would change. */
export interface JsonFormat {
  /** 0: on one line; a number of spaces or a tab for each level. */
  indent: 0 | 2 | 4 | '\t';
  /** A space after each colon and comma (of a one-line document). */
  spaced: boolean;
  /** Keys in the contract's order, reversed, or sorted. */
  order: 'contract' | 'reversed' | 'sorted';
  /** Characters written as \u escapes: none (UTF-8), every non-ASCII one, or every letter too. */
  escape: 'none' | 'non-ascii' | 'all';
}

export const CANONICAL_FORMAT: JsonFormat = { indent: 0, spaced: false, order: 'contract', escape: 'none' };

/** A file the customer sends with a message. */
export interface FuzzAttachment {
  name: string;
  type: string | null;
}

/** What the customer does: types, presses a button (the delivery's quickReply) or picks a list item (IM only; else a press). */
export type FuzzAction = 'text' | 'press' | 'pick';

export interface FuzzMessage {
  text: TextSpec;
  action: FuzzAction;
  attachments: FuzzAttachment[];
  /** Fields no version of the webhook has, at the top and in `message`. */
  unknownFields: boolean;
  /** The question's questionId above 2^53 (the sandbox picks one that a double cannot hold). */
  largeIds: boolean;
  format: JsonFormat;
  /** Sent at once after the one before, before the bot answered it. */
  burst: boolean;
  /** Sent again once answered: the same webhook-id and body, as a platform's redelivery. */
  redeliver: boolean;
}

export interface FuzzConversation {
  channel: Channel;
  /** The client's coreClientId, above 2^53 and odd (a double cannot hold it); null: the sandbox's own. */
  coreClientId: bigint | null;
  messages: FuzzMessage[];
}
