import { Command, Option } from 'commander';
import { CODES_HANDLED_FIRST } from '../../payload/codes.js';
import { globalOptions, type CommandFactory } from '../definition.js';
import { addQuickReplyOptions, addSendOptions, readSendOptions } from '../send-options.js';
import type { ReplyOptions } from './run.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export const replyCommand: CommandFactory = (inv) => {
  const cmd = new Command('reply')
    .summary('send a bot answer to a customer thread (POST /api/v1/chatbot)')
    .description(
      'Send a bot answer to a customer thread (POST /api/v1/chatbot).\n\n' +
        'Address it by --core-client-id (preferred), --question-id, --session-id with --question-index, or the ' +
        'deprecated --client-id. Every reply carries an answerId (a new UUID unless --answer-id is given), so a ' +
        'retry cannot deliver it twice.\n\n' +
        "With -f, a flag replaces the file's field and a repeatable flag (--quick-reply, --attachment, --user-id, " +
        "...) replaces the file's whole list, while --segment, --personal-manager, --block-input and --masked set " +
        "keys inside the file's segmentationInfo and settings.",
    )
    .option('-t, --text <text>', "the reply's text")
    .addOption(new Option('--text-file <path>', 'read the text from a file ("-" for standard input)').conflicts('text'))
    .option('--markdown <text>', 'Markdown text (formattedText); text is filled with its plain-text form when absent')
    .addOption(new Option('--markdown-file <path>', 'read the Markdown text from a file ("-" for standard input)').conflicts('markdown'))
    .option('--core-client-id <id>', 'internal client ID (long); preferred')
    .option('--client-id <id>', 'external client ID (deprecated: use --core-client-id)')
    .option('--question-id <id>', "ID of the client's message")
    .option('--session-id <id>', 'thread ID; goes with --question-index')
    .option('--question-index <n>', "index of the client's message in the thread; goes with --session-id")
    .option('--email', 'the question came by email: requires --session-id and --question-index')
    .option('--answer-id <id>', 'unique ID of this answer (default: a new UUID, printed)')
    .addOption(new Option('--code <code>', 'what the bot did').choices(CODES_HANDLED_FIRST))
    .option('--user-id <id>', 'agent to hand the thread to (repeatable; with --code SWITCH_TO_HUMAN)', collect)
    .option('--skill-id <id>', 'skill the target agents must have (repeatable; with SWITCH_TO_HUMAN)', collect)
    .option('--unit-id <id>', 'department whose agents receive the thread (repeatable; with SWITCH_TO_HUMAN)', collect)
    .option('--attachment <url>', 'attach a file by URL; name and MIME type come from the URL (repeatable)', collect)
    .option('--segment <key=value>', 'a segmentationInfo entry (repeatable)', collect)
    .option('--personal-manager <login>', 'route to this agent as personal manager (segmentationInfo.personal_manager)')
    .option('--received-at <time>', 'time of receipt, yyyy-MM-ddTHH:mm:ss.SSSZ in UTC, or "now"')
    .option('--action <action>', 'action, such as INIT_CHAT');
  const quickReplies = addQuickReplyOptions(cmd);
  addSendOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core reply --core-client-id 1234567 -t "Your order has shipped."
  $ core reply --question-id 998877 -t "Pick one:" --quick-reply Yes --quick-reply No
  $ core reply --session-id 5f1c --question-index 3 --email -t "Thanks for your email."
  $ core reply --core-client-id 1234567 -t "Passing you to a person." --code SWITCH_TO_HUMAN --skill-id 12
  $ core reply --core-client-id 1234567 --text-file answer.txt
  $ core reply --question-id 998877 --markdown-file answer.md
  $ core reply -f answer.yaml --dry-run
  $ core reply -f answer.json --json | jq -r .requestId`,
  );
  cmd.action(async (raw: Record<string, unknown>, self: Command) => {
    const options: ReplyOptions = {
      ...readSendOptions(raw),
      global: globalOptions(self),
      email: raw.email === true,
      textFile: raw.textFile as string | undefined,
      markdownFile: raw.markdownFile as string | undefined,
      fields: {
        text: raw.text as string | undefined,
        markdown: raw.markdown as string | undefined,
        coreClientId: raw.coreClientId as string | undefined,
        clientId: raw.clientId as string | undefined,
        questionId: raw.questionId as string | undefined,
        sessionId: raw.sessionId as string | undefined,
        questionIndex: raw.questionIndex as string | undefined,
        answerId: raw.answerId as string | undefined,
        code: raw.code as string | undefined,
        userIds: raw.userId as string[] | undefined,
        skillIds: raw.skillId as string[] | undefined,
        unitIds: raw.unitId as string[] | undefined,
        attachments: raw.attachment as string[] | undefined,
        quickReplies: quickReplies(),
        blockInput: raw.blockInput === true ? true : undefined,
        masked: raw.masked === true ? true : undefined,
        segments: raw.segment as string[] | undefined,
        personalManager: raw.personalManager as string | undefined,
        receivedAt: raw.receivedAt as string | undefined,
        action: raw.action as string | undefined,
      },
    };
    const { runReply } = await import('./run.js');
    inv.exitCode = await runReply(options, inv.ctx);
  });
  return cmd;
};
