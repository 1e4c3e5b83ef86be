import { describe, expect, it } from 'vitest';
import { validateTestFile } from '../../src/testing/schema.js';

const chars = (n: number) => 'x'.repeat(n);
const file = (steps: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'a test', steps, ...extra });

describe('the test file schema', () => {
  it.each([
    [
      'the example of the contract',
      file(
        [
          { customer: 'Where is my order?' },
          { bot: { text: '/shipped/', quickReplies: ['Track it', 'Talk to a person'] } },
          { press: 'Talk to a person' },
          { bot: { code: 'SWITCH_TO_HUMAN', skillIds: [12n] } },
        ],
        { channel: 'WEB' },
      ),
    ],
    ['several bot steps in a row', file([{ customer: 'Hi' }, { bot: { text: 'Hello' } }, { bot: { text: '/help/i' } }])],
    [
      'bot: none, with and without within',
      file([{ customer: 'Hi' }, { bot: 'none' }, { customer: 'Hi' }, { bot: 'none', within: '500ms' }, { bot: 'none', within: 1500n }]),
    ],
    ['any answer', file([{ customer: 'Hi' }, { bot: {} }])],
    [
      'the other fields of the answer: addressing, answerId, receivedAt, action, segmentationInfo',
      file([
        { customer: 'Hi' },
        {
          bot: {
            answerId: '/^a-/',
            clientId: 'alice',
            coreClientId: 9223372036854775807n,
            sessionId: '/^s-/',
            questionId: '/^\\d+$/',
            questionIndex: 1n,
            receivedAt: null,
            action: 'INIT_CHAT',
            segmentationInfo: { personal_manager: 'anna' },
          },
        },
      ]),
    ],
    ['null for an absent field', file([{ customer: 'Hi' }, { bot: { quickReplies: null, formattedText: null } }])],
    [
      'nested fields of the answer',
      file([
        { customer: 'Hi' },
        { bot: { messageListPicker: { title: 'Sizes', sections: [{ items: [{ identifier: 'size-l', title: '/L/' }] }] } } },
      ]),
    ],
    ['an authorized client', file([{ customer: 'Hi' }], { client: { clientId: 'alice@example.com' } })],
    ['a client by coreClientId, past 2^53', file([{ customer: 'Hi' }], { client: { coreClientId: 9223372036854775807n } })],
    [
      'several conversations',
      {
        name: 'suite',
        channel: 'IM',
        conversations: [
          { name: 'one', steps: [{ customer: 'a' }] },
          { name: 'two', channel: 'EMAIL', steps: [{ customer: 'b' }] },
        ],
      },
    ],
    [`a customer message of 4000 characters, the sandbox's limit`, file([{ customer: chars(4000) }])],
    [
      "the agent's side: a routing to an agent, an agent's message by default and by id, the thread given back",
      file([
        { customer: 'A person, please' },
        { bot: { code: 'SWITCH_TO_HUMAN' }, handover: { agent: 101n } },
        { agent: 'Ann here' },
        { agent: chars(4000), agentId: 9223372036854775807n },
        { release: true },
      ]),
    ],
    ['a hand-over expected queued', file([{ customer: 'Hi' }, { bot: {}, handover: 'queued', within: '1s' }])],
  ])('accepts %s', (_, value) => {
    const result = validateTestFile(value);
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it.each([
    [
      'a customer message of 4001 characters',
      file([{ customer: chars(4001) }]),
      [{ path: 'steps[0].customer', message: '4,001 characters, limit 4,000' }],
    ],
    ['an empty customer message', file([{ customer: '' }]), [{ path: 'steps[0].customer', message: 'must not be empty' }]],
    [
      "an agent's message of 4001 characters",
      file([{ customer: 'Hi' }, { agent: chars(4001) }]),
      [{ path: 'steps[1].agent', message: '4,001 characters, limit 4,000' }],
    ],
    ["an empty agent's message", file([{ customer: 'Hi' }, { agent: '' }]), [{ path: 'steps[1].agent', message: 'must not be empty' }]],
    [
      'agentId without agent',
      file([{ customer: 'Hi' }, { release: true, agentId: 101n }]),
      [{ path: 'steps[1].agentId', message: 'only with agent: TEXT: the agent who writes' }],
    ],
    [
      'an agentId that is not a whole number',
      file([{ customer: 'Hi' }, { agent: 'Hi', agentId: 'Ann' }]),
      [{ path: 'steps[1].agentId', message: expect.stringMatching(/^expected an integer/) }],
    ],
    ['release: false', file([{ customer: 'Hi' }, { release: false }]), [{ path: 'steps[1].release', message: 'expected true, got false' }]],
    [
      'handover beside a customer step',
      file([{ customer: 'Hi', handover: 'queued' }]),
      [{ path: 'steps[0].handover', message: 'only with bot: {...}: the routing of the hand-over that answer makes' }],
    ],
    [
      'handover beside bot: none',
      file([{ customer: 'Hi' }, { bot: 'none', handover: { agent: 1n } }]),
      [{ path: 'steps[1].handover', message: 'only with bot: {...}: the routing of the hand-over that answer makes' }],
    ],
    [
      'a handover that is neither an agent nor queued',
      file([{ customer: 'Hi' }, { bot: {}, handover: 'waiting' }]),
      [{ path: 'steps[1].handover', message: 'expected {agent: ID} or queued, got "waiting"' }],
    ],
    [
      'a handover naming no agent',
      file([{ customer: 'Hi' }, { bot: {}, handover: { agentId: 1n } }]),
      [
        { path: 'steps[1].handover.agent', message: expect.stringMatching(/required/) },
        { path: 'steps[1].handover.agentId', message: expect.stringMatching(/^unknown field/) },
      ],
    ],
    [
      'an agent step first',
      file([{ agent: 'Hello' }]),
      [{ path: 'steps[0]', message: 'the first step is customer: TEXT: a conversation starts with the customer writing' }],
    ],
    ['no steps', { name: 'x' }, [{ path: '', message: 'required: steps (or conversations)' }]],
    ['an empty list of steps', file([]), [{ path: 'steps', message: 'must hold at least one item' }]],
    [
      'a step that is two',
      file([{ customer: 'Hi', bot: {} }]),
      [
        {
          path: 'steps[0]',
          message: 'a step is one of customer, press, bot, agent or release, not customer and bot: write each as its own step',
        },
      ],
    ],
    [
      'a step that is none',
      file([{ customer: 'Hi' }, {}]),
      [{ path: 'steps[1]', message: 'a step is one of customer: TEXT, press: LABEL, bot: {...}, agent: TEXT or release: true' }],
    ],
    [
      'a first step that is not the customer',
      file([{ bot: { text: 'Hi' } }]),
      [{ path: 'steps[0]', message: 'the first step is customer: TEXT: a conversation starts with the customer writing' }],
    ],
    [
      'a misspelt step',
      file([{ customer: 'Hi' }, { costumer: 'Hi' }]),
      [
        { path: 'steps[1]', message: 'a step is one of customer: TEXT, press: LABEL, bot: {...}, agent: TEXT or release: true' },
        { path: 'steps[1].costumer', message: 'unknown field; did you mean "customer"?' },
      ],
    ],
    [
      'within beside a customer step',
      file([{ customer: 'Hi', within: '1s' }]),
      [{ path: 'steps[0].within', message: 'only with bot: {...} or bot: none' }],
    ],
    [
      'a bad duration',
      file([{ customer: 'Hi' }, { bot: 'none', within: 'soon' }]),
      [{ path: 'steps[1].within', message: expect.stringMatching(/^invalid duration "soon"; use a duration such as 2s/) }],
    ],
    [
      'bot: a word other than none',
      file([{ customer: 'Hi' }, { bot: 'nothing' }]),
      [{ path: 'steps[1].bot', message: 'expected the fields of the bot answer to check, such as {text: Hello}, or none' }],
    ],
    [
      'a field the answer does not have',
      file([{ customer: 'Hi' }, { bot: { txt: 'Hi' } }]),
      [{ path: 'steps[1].bot.txt', message: 'unknown field; did you mean "text"?' }],
    ],
    [
      'a number field given as text that is no pattern',
      file([{ customer: 'Hi' }, { bot: { questionIndex: true } }]),
      [{ path: 'steps[1].bot.questionIndex', message: 'expected a whole number or a pattern (/.../), got true' }],
    ],
    [
      'a nested field the answer cannot have',
      file([{ customer: 'Hi' }, { bot: { quickReplies: [{ shownText: 'x' }] } }]),
      [{ path: 'steps[1].bot.quickReplies[0].shownText', message: 'unknown field; did you mean "shown_text"?' }],
    ],
    [
      'a bad regular expression',
      file([{ customer: 'Hi' }, { bot: { text: '/ship(/' } }]),
      [{ path: 'steps[1].bot.text', message: expect.stringMatching(/^"\/ship\(\/" is not a valid regular expression: /) }],
    ],
    [
      'a bad regular expression in a list',
      file([{ customer: 'Hi' }, { bot: { quickReplies: ['/[/'] } }]),
      [{ path: 'steps[1].bot.quickReplies[0]', message: expect.stringMatching(/not a valid regular expression/) }],
    ],
    [
      'a bad regular expression deep inside',
      file([{ customer: 'Hi' }, { bot: { messageListPicker: { sections: [{ title: '/(/' }] } } }]),
      [{ path: 'steps[1].bot.messageListPicker.sections[0].title', message: expect.stringMatching(/not a valid regular expression/) }],
    ],
    [
      'a flag that is not one',
      file([{ customer: 'Hi' }, { bot: { text: '/path/to/file' } }]),
      [
        {
          path: 'steps[1].bot.text',
          message: expect.stringContaining(
            'ends with the flags fle; the flags are i, m, s, u, v. To match this text exactly, write "/^\\\\/path\\\\/to\\\\/file$/"',
          ),
        },
      ],
    ],
    [
      'the g flag',
      file([{ customer: 'Hi' }, { bot: { text: '/a/g' } }]),
      [{ path: 'steps[1].bot.text', message: expect.stringContaining('ends with the flag g') }],
    ],
    [
      'a text that is not a string',
      file([{ customer: 'Hi' }, { bot: { text: 12n } }]),
      [{ path: 'steps[1].bot.text', message: 'expected a string or null, got 12' }],
    ],
    [
      'an identifier below 0',
      file([{ customer: 'Hi' }, { bot: { skillIds: [-1n] } }]),
      [
        {
          path: 'steps[1].bot.skillIds[0]',
          message: expect.stringMatching(/^expected an integer from 0 to 9,223,372,036,854,775,807, got -1/),
        },
      ],
    ],
    [
      'an identifier past the largest long',
      file([{ customer: 'Hi' }, { bot: { userIds: [9223372036854775808n] } }]),
      [{ path: 'steps[1].bot.userIds[0]', message: expect.stringMatching(/^expected an integer from 0 to/) }],
    ],
    [
      'a button that is neither a text nor an object',
      file([{ customer: 'Hi' }, { bot: { quickReplies: [true] } }]),
      [{ path: 'steps[1].bot.quickReplies[0]', message: "expected the quick-reply button's text (a string) or an object of its fields" }],
    ],
    [
      'a channel that is not one',
      file([{ customer: 'Hi' }], { channel: 'SMS' }),
      [{ path: 'channel', message: '"SMS" is not a channel: use WEB, IM or EMAIL (in any case)' }],
    ],
    [
      'a channel written with a look-alike letter (the dotless ı)',
      file([{ customer: 'Hi' }], { channel: 'ım' }),
      [{ path: 'channel', message: '"ım" is not a channel: use WEB, IM or EMAIL (in any case)' }],
    ],
    [
      'a channel that is not a string',
      file([{ customer: 'Hi' }], { channel: 1n }),
      [{ path: 'channel', message: 'expected a string, got 1' }],
    ],
    [
      'a client by both identifiers',
      file([{ customer: 'Hi' }], { client: { clientId: 'a', coreClientId: 1n } }),
      [{ path: 'client', message: 'give clientId or coreClientId, not both' }],
    ],
    [
      'steps and conversations',
      { ...file([{ customer: 'Hi' }]), conversations: [{ name: 'x', steps: [{ customer: 'a' }] }] },
      [{ path: '', message: 'give steps or conversations, not both' }],
    ],
    [
      'a conversation without a name',
      { conversations: [{ steps: [{ customer: 'a' }] }] },
      [{ path: 'conversations[0].name', message: 'required' }],
    ],
    [
      'two conversations of one name',
      {
        conversations: [
          { name: 'x', steps: [{ customer: 'a' }] },
          { name: 'x', steps: [{ customer: 'b' }] },
        ],
      },
      [{ path: 'conversations[1].name', message: '"x" is repeated; first at conversations[0].name' }],
    ],
  ])('refuses %s, naming the path', (_, value, problems) => {
    const result = validateTestFile(value);
    expect(result.ok ? [] : result.problems).toEqual(problems);
  });

  it.each([
    ['IM', 'IM'],
    ['im', 'IM'],
    ['Im', 'IM'],
    ['web', 'WEB'],
    ['eMaIl', 'EMAIL'],
  ])('reads the channel %s in any case, as %s, in a file and in a conversation', (name, channel) => {
    const single = validateTestFile(file([{ customer: 'Hi' }], { channel: name }));
    expect(single.ok && single.value.channel).toBe(channel);
    const several = validateTestFile({ conversations: [{ name: 'a', channel: name, steps: [{ customer: 'Hi' }] }] });
    expect(several.ok && several.value.conversations?.[0]?.channel).toBe(channel);
  });

  it('reports every problem of a file at once', () => {
    const result = validateTestFile(file([{ customer: '' }, { bot: { txt: 'a', text: '/(/' } }, { press: 'x', within: '1s' }]));
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual([
      'steps[0].customer',
      'steps[1].bot.text',
      'steps[1].bot.txt',
      'steps[2].within',
    ]);
  });
});
