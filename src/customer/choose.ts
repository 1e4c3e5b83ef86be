/**
 * What a customer's press sends (docs/sandbox.md, "The customer's side"), decided once for `core
 * customer press`, `core test`'s `press:` steps and the library's `press`.
 */

/** The bot's last message as the sandbox shows it (GET /_sandbox/conversations/{sessionId}): what a press can choose from. */
export interface LastMessage {
  quickReplies: readonly Record<string, unknown>[];
  /** Read loosely: the sandbox shows it as the bot sent it. */
  messageListPicker: unknown;
}

interface Picker {
  sections?: { items?: { identifier?: string; title?: string }[] }[];
}

/**
 * What pressing LABEL sends: a button whose text (or shown_text) is LABEL, else a list item whose
 * identifier (or title) is LABEL. Anything else is sent as a press, so the sandbox's refusal names
 * what the message offers: the one place that knows it.
 */
export function choose(last: LastMessage | null, label: string): { press: string } | { pick: string } {
  const buttons = last?.quickReplies ?? [];
  const button = buttons.find((b) => b.text === label) ?? buttons.find((b) => b.shown_text === label);
  if (button) return { press: String(button.text) };
  const picker = last?.messageListPicker as Picker | null | undefined;
  const items = (picker?.sections ?? []).flatMap((section) => section.items ?? []);
  const item = items.find((i) => i.identifier === label) ?? items.find((i) => i.title === label);
  if (item?.identifier !== undefined) return { pick: item.identifier };
  return { press: label };
}
