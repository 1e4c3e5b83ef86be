import type { Problem } from '../../errors.js';
import type { Channel } from '../events.js';
import type { LastBotMessage } from '../model.js';

/**
 * Where a message breaks a rule of the thread's channel: the interactive list and the header and
 * footer are for the instant-messenger channel only (docs/api.md, list rule 1, header-footer rule 1).
 * The message is delivered; the customer does not see those parts.
 */
export function channelWarnings(message: unknown, channel: Channel): Problem[] {
  if (channel === 'IM' || typeof message !== 'object' || message === null) return [];
  const fields = message as Record<string, unknown>;
  const problems: Problem[] = [];
  if (fields.messageListPicker != null) {
    problems.push({
      path: 'messageListPicker',
      message: `the list is shown on IM threads only (docs/api.md, list rule 1); this thread is ${channel}, so the customer does not see it`,
    });
  }
  if (fields.quickRepliesHeaderFooter != null) {
    problems.push({
      path: 'quickRepliesHeaderFooter',
      message: `the header and footer are shown on IM threads only (docs/api.md, header-footer rule 1); this thread is ${channel}, so the customer does not see them`,
    });
  }
  return problems;
}

/** What the customer can press or pick after a delivered message: its quick replies, and its list on an IM thread. */
export function lastBotMessage(message: unknown, seq: number, channel: Channel): LastBotMessage {
  const fields = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  const quickReplies = Array.isArray(fields.quickReplies)
    ? (fields.quickReplies.filter((q) => typeof q === 'object' && q !== null) as Record<string, unknown>[])
    : [];
  const picker = fields.messageListPicker;
  return {
    seq,
    quickReplies,
    messageListPicker: typeof picker === 'object' && picker !== null ? (picker as Record<string, unknown>) : null,
    listShown: channel === 'IM',
  };
}
