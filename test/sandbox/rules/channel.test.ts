import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/sandbox/events.js';
import { channelWarnings, lastBotMessage } from '../../../src/sandbox/rules/channel.js';

/** List rule 1 and header-footer rule 1 (docs/api.md): IM only; delivered with a warning elsewhere. */

const list = { messageListPicker: { title: 'Pick' } };
const headerFooter = { quickRepliesHeaderFooter: { header: 'h' } };

describe("warnings for parts the thread's channel does not show", () => {
  it.each([
    ['IM', { ...list, ...headerFooter }, []],
    ['WEB', list, ['messageListPicker']],
    ['EMAIL', headerFooter, ['quickRepliesHeaderFooter']],
    ['WEB', { ...list, ...headerFooter }, ['messageListPicker', 'quickRepliesHeaderFooter']],
    ['WEB', { messageListPicker: null, quickRepliesHeaderFooter: null }, []],
    ['WEB', { text: 'plain' }, []],
    ['WEB', null, []],
    ['WEB', 'not an object', []],
  ] as const)('on %s, %o warns at %o', (channel: Channel, message, paths) => {
    expect(channelWarnings(message, channel).map((p) => p.path)).toEqual(paths);
  });

  it('names the rule and the channel', () => {
    expect(channelWarnings(list, 'EMAIL')[0]?.message).toBe(
      'the list is shown on IM threads only (docs/api.md, list rule 1); this thread is EMAIL, so the customer does not see it',
    );
    expect(channelWarnings(headerFooter, 'WEB')[0]?.message).toBe(
      'the header and footer are shown on IM threads only (docs/api.md, header-footer rule 1); this thread is WEB, so the customer does not see them',
    );
  });
});

describe("the bot's last message, as the customer can press or pick it", () => {
  it('keeps the quick replies that are objects, the list, and whether the list is shown (IM only)', () => {
    const reply = { quickReplies: [{ text: 'Yes' }, null, 'x', { text: 'No' }], messageListPicker: { title: 'Pick' } };
    expect(lastBotMessage(reply, 9, 'IM')).toEqual({
      seq: 9,
      quickReplies: [{ text: 'Yes' }, { text: 'No' }],
      messageListPicker: { title: 'Pick' },
      listShown: true,
    });
    expect(lastBotMessage(reply, 9, 'WEB').listShown).toBe(false);
    expect(lastBotMessage(reply, 9, 'EMAIL').listShown).toBe(false);
  });

  it.each([[{}], [{ quickReplies: 'x', messageListPicker: 'y' }], [null]])('is empty for %o', (message) => {
    expect(lastBotMessage(message, 1, 'WEB')).toEqual({ seq: 1, quickReplies: [], messageListPicker: null, listShown: false });
  });
});
