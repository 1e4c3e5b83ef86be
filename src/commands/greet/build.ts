import {
  applyQuickReplyFlags,
  applyReceivedAt,
  applySettingsFlags,
  idFromFlag,
  payloadFromFile,
  setField,
  type QuickReplyFlag,
} from '../../input/fields.js';

/** The payload fields `core greet` takes from flags (docs/commands/greet.md). */
export interface GreetFields {
  text?: string;
  coreClientId?: string;
  clientId?: string;
  quickReplies?: QuickReplyFlag[];
  blockInput?: boolean;
  masked?: boolean;
  receivedAt?: string;
}

export interface BuiltGreeting {
  payload: Record<string, unknown>;
  /** How the payload was completed, for --verbose. */
  notes: string[];
}

/**
 * Builds the greeting (docs/api.md, "Greeting") from the file's fields (if any) with the flags laid
 * over them: a flag replaces the file's field, a repeatable flag the file's whole list, and
 * --block-input / --masked set keys inside the file's settings. Nothing is checked here: the
 * payload schema reports every problem at once, with its path.
 */
export function buildGreeting(file: unknown, fields: GreetFields, env: { now: Date }): BuiltGreeting {
  const payload = payloadFromFile(file, 'the greeting');
  const notes: string[] = [];
  setField(payload, 'text', fields.text);
  setField(payload, 'clientId', fields.clientId);
  setField(payload, 'coreClientId', fields.coreClientId === undefined ? undefined : idFromFlag(fields.coreClientId));
  setField(payload, 'receivedAt', fields.receivedAt);
  applyQuickReplyFlags(payload, fields.quickReplies);
  applySettingsFlags(payload, fields);
  applyReceivedAt(payload, env.now, notes);
  return { payload, notes };
}
