import { describeValue } from './messages.js';

/**
 * The channels a thread can be on (docs/sandbox.md, "State"): the one list the sandbox, `core test`,
 * `core customer` and the library read. Light (no zod), so every layer can import it at start-up.
 */
export const CHANNELS = ['WEB', 'IM', 'EMAIL'] as const;
export type Channel = (typeof CHANNELS)[number];

/** A channel's name as a user may write it: the canonical name, or the same letters in any case. */
export type ChannelName = Channel | Lowercase<Channel> | Capitalize<Lowercase<Channel>>;

/** A channel's name in any case, as a regular expression's source (for JSON Schema's `pattern`, which has no flags). */
export const CHANNEL_PATTERN = `^(?:${CHANNELS.map((channel) => [...channel].map((letter) => `[${letter}${letter.toLowerCase()}]`).join('')).join('|')})$`;

/** The channels in words, for help and errors: "WEB, IM or EMAIL". */
export const CHANNEL_LIST = `${CHANNELS.slice(0, -1).join(', ')} or ${CHANNELS[CHANNELS.length - 1]}`;

/**
 * The channel a name stands for, in any case (`im`, `Im`, `IM`), or undefined when it names none.
 * Only the ASCII letters are folded, so a look-alike such as the dotless ı of `ım` names no channel.
 */
export function channelNamed(name: string): Channel | undefined {
  const upper = name.replace(/[a-z]/g, (letter) => letter.toUpperCase());
  return CHANNELS.find((channel) => channel === upper);
}

/** Why a value names no channel, listing the canonical names: `"SMS" is not a channel: use WEB, IM or EMAIL (in any case)`. */
export function notAChannel(value: unknown): string {
  return `${describeValue(value)} is not a channel: use ${CHANNEL_LIST} (in any case)`;
}

/** A value read as a channel name (a string in any case), or undefined: anything else names no channel. */
export function channelOf(value: unknown): Channel | undefined {
  return typeof value === 'string' ? channelNamed(value) : undefined;
}
