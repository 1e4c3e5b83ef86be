import type { SandboxConnection } from '../platform/connection.js';

/**
 * What the runner needs of the sandbox: the customer's side of a connection (start a conversation,
 * write in it, read the bot's last message for a press), the events of each conversation, and the
 * choice a press makes (src/platform/connection.ts). The command hands it a connection of either
 * transport: on the handle of a sandbox it started itself (no HTTP), or over HTTP to one at
 * --sandbox URL; bot testing names its type and imports nothing of it that runs.
 */
export type SandboxClient = Pick<
  SandboxConnection,
  'startConversation' | 'sendMessage' | 'post' | 'showConversation' | 'follow' | 'choose' | 'signal' | 'agentMessage' | 'release'
>;

export type { LastMessage, PlatformEvent, SandboxAnswer } from '../platform/connection.js';
