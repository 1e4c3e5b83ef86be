import { idFromFlag } from '../input/fields.js';
import { askField } from './ask.js';
import { compose, type ComposeEnv, type ComposeOptions, type Draft, type DraftCheck, type Part } from './composer.js';
import { asText, headerFooterPart, listPickerPart, quickRepliesPart, settingsPart, textPart } from './parts.js';
import { greetingFields } from './schemas.js';

/**
 * `core greet -i`: the composer with the greeting's parts (docs/api.md, "Greeting"): the text, the
 * client, quick replies, header and footer, the list, settings.
 */

/** The greeting's fields in the order of docs/api.md's table, so a composed payload reads like it. */
export const GREETING_ORDER = [
  'text',
  'clientId',
  'coreClientId',
  'receivedAt',
  'quickReplies',
  'settings',
  'quickRepliesHeaderFooter',
  'messageListPicker',
] as const;

/** Who the greeting is for. docs/api.md, greet rule 1: clientId or coreClientId must be given. */
export function greetingAddressee(draft: Draft): string {
  if (draft.clientId !== undefined) return `clientId ${asText(draft.clientId) ?? '?'}`;
  if (draft.coreClientId !== undefined) return `coreClientId ${asText(draft.coreClientId) ?? '?'}`;
  return 'no client yet';
}

type Which = 'coreClientId' | 'clientId';

const clientPart: Part = {
  key: 'client',
  name: 'Client',
  summary: (draft) => (draft.clientId === undefined && draft.coreClientId === undefined ? undefined : greetingAddressee(draft)),
  needed: (draft) => draft.clientId === undefined && draft.coreClientId === undefined,
  async ask(draft, env) {
    const which = await env.prompter.select<Which>({
      message: 'Greet which client?',
      choices: [
        { value: 'coreClientId', name: 'By coreClientId: the internal client ID; any client (preferred)', short: 'coreClientId' },
        { value: 'clientId', name: 'By clientId: the external client ID; authorized clients only (deprecated)', short: 'clientId' },
      ],
      default: draft.clientId !== undefined && draft.coreClientId === undefined ? 'clientId' : 'coreClientId',
    });
    if (which === 'coreClientId') {
      const id = await askField(env, {
        label: 'coreClientId',
        schema: greetingFields.coreClientId,
        parse: idFromFlag,
        current: asText(draft.coreClientId),
      });
      draft.coreClientId = idFromFlag(id!);
      // Greet rule 3: with both identifiers clientId would take priority; the one chosen here is meant.
      delete draft.clientId;
    } else {
      draft.clientId = await askField(env, { label: 'clientId', schema: greetingFields.clientId, current: asText(draft.clientId) });
      delete draft.coreClientId;
    }
  },
};

export const GREETING_PARTS: Part[] = [
  textPart(greetingFields.text, (draft) => draft.text === undefined),
  clientPart,
  quickRepliesPart,
  headerFooterPart,
  listPickerPart,
  settingsPart,
];

export interface ComposeGreetingOptions extends Pick<ComposeOptions, 'sendLabel' | 'cwd'>, Required<Pick<ComposeOptions, 'save'>> {
  validate(draft: Draft): DraftCheck;
}

/** Asks for what the greeting still lacks, previews it, and returns it when the user chooses to send. */
export function composeGreeting(draft: Draft, env: ComposeEnv, options: ComposeGreetingOptions): Promise<Draft> {
  return compose(draft, env, {
    ...options,
    kind: 'greeting',
    parts: GREETING_PARTS,
    title: (d) => `Greeting to ${greetingAddressee(d)}`,
    order: GREETING_ORDER,
  });
}
