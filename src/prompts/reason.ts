import { validateReason } from '../payload/index.js';
import { stringifyJson } from '../payload/json.js';
import { isRecord } from '../input/fields.js';
import { askField } from './ask.js';
import { compose, type ComposeEnv, type ComposeOptions, type Draft, type Part } from './composer.js';
import { asText } from './parts.js';
import { cut } from './preview.js';
import { reasonFields, translationFields } from './schemas.js';

/**
 * `core reason update -i`: prompts for one inactivity reason (docs/api.md, "Inactivity reason"):
 * the code, the translations, the colour, active and system. Each answer is checked as it is typed
 * by the reason schema's own field (src/payload/reason.ts); the composer's flow (composer.ts) asks
 * for what the flags and the file left out, then shows a summary and lets the user send, edit a
 * part, or cancel.
 */

/** The reason's fields in the order of docs/api.md's table. */
export const REASON_ORDER = ['code', 'reasons', 'color', 'active', 'system'] as const;

const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/** A value in the summary: as it is for a string that fits, else quoted or as JSON. */
const shown = (value: unknown, width = 40): string => {
  const text = asText(value);
  return cut(text ?? stringifyJson(value), width);
};

/**
 * Whether one more translation with this locale is allowed after the translations so far: the
 * reason validator's verdict at that translation's locale (each locale once, compared without
 * case), so the prompt refuses a repeat exactly as the payload's validation does.
 */
export function localeAfter(list: readonly Record<string, unknown>[], locale: unknown): true | string {
  const verdict = validateReason({ reasons: [...list, { locale }] });
  if (verdict.ok) return true;
  const path = `reasons[${list.length}].locale`;
  return verdict.problems.find((p) => p.path === path)?.message ?? true;
}

const codePart: Part = {
  key: 'code',
  name: 'Code',
  summary: (draft) => (draft.code === undefined ? undefined : shown(draft.code)),
  needed: (draft) => draft.code === undefined,
  async ask(draft, env) {
    draft.code = await askField(env, { label: 'Code of the reason to update', schema: reasonFields.code, current: asText(draft.code) });
  },
};

/** reasons[]: the translations, a locale and a name each, asked one after another. */
const translationsPart: Part = {
  key: 'reasons',
  name: 'Translations',
  summary(draft) {
    if (draft.reasons === undefined) return undefined;
    const list = records(draft.reasons);
    if (list.length === 0) return Array.isArray(draft.reasons) ? 'none' : shown(draft.reasons);
    return list.map((t) => `${asText(t.locale) ?? '?'} ${JSON.stringify(cut(asText(t.name) ?? '', 24))}`).join(', ');
  },
  needed: (draft) => draft.reasons === undefined,
  async ask(draft, env) {
    const previous = records(draft.reasons);
    const list: Record<string, unknown>[] = [];
    for (let i = 0; ; i++) {
      const before = previous[i] ?? {};
      const n = i + 1;
      const locale = (await askField(env, {
        label: `Translation ${n} locale (two letters, such as en)`,
        schema: translationFields.locale,
        current: asText(before.locale),
        check: (value) => localeAfter(list, value),
      }))!;
      const name = (await askField(env, { label: `Translation ${n} name`, schema: translationFields.name, current: asText(before.name) }))!;
      list.push({ locale, name });
      if (!(await env.prompter.confirm({ message: 'Add another translation?', default: n < previous.length }))) break;
    }
    draft.reasons = list;
  },
};

const colorPart: Part = {
  key: 'color',
  name: 'Colour',
  summary: (draft) => (draft.color === undefined ? undefined : shown(draft.color)),
  needed: (draft) => draft.color === undefined,
  remove(draft) {
    delete draft.color;
  },
  async ask(draft, env) {
    const color = await askField(env, {
      label: 'Colour as #RRGGBB, such as #FF8800',
      schema: reasonFields.color,
      optional: true,
      current: asText(draft.color),
    });
    if (color === undefined) delete draft.color;
    else draft.color = color;
  },
};

/** What leaving `active` out means: docs/api.md, reason field rule 4, active defaults to true on the service. */
export const ACTIVE_LEFT_OUT = 'left out: the service applies its default, true';

type Tristate = 'true' | 'false' | 'omit';

const tristateOf = (value: unknown): Tristate => (value === true ? 'true' : value === false ? 'false' : 'omit');

function setTristate(draft: Draft, key: string, choice: Tristate): void {
  if (choice === 'omit') delete draft[key];
  else draft[key] = choice === 'true';
}

const activePart: Part = {
  key: 'active',
  name: 'Active',
  summary: (draft) =>
    draft.active === true
      ? 'active (true)'
      : draft.active === false
        ? 'inactive (false)'
        : draft.active === undefined
          ? ACTIVE_LEFT_OUT
          : shown(draft.active),
  needed: (draft) => draft.active === undefined,
  async ask(draft, env) {
    const choice = await env.prompter.select<Tristate>({
      message: 'Active?',
      choices: [
        { value: 'true', name: 'Active: the reason is available (sends "active": true)', short: 'active' },
        { value: 'false', name: 'Inactive: the reason is not available (sends "active": false)', short: 'inactive' },
        {
          value: 'omit',
          name: 'Leave it out: not sent; the service applies its default, true',
          short: 'left out',
          description: 'An update without active can make an inactive reason active again.',
        },
      ],
      default: tristateOf(draft.active),
    });
    setTristate(draft, 'active', choice);
  },
};

const systemPart: Part = {
  key: 'system',
  name: 'System',
  summary: (draft) => (draft.system === undefined ? undefined : shown(draft.system)),
  needed: (draft) => draft.system === undefined,
  async ask(draft, env) {
    const choice = await env.prompter.select<Tristate>({
      message: `system ${env.style.dim('(optional; the API shows it only in its example, as false)')}`,
      choices: [
        { value: 'omit', name: 'Leave it out (not sent)', short: 'left out' },
        { value: 'false', name: 'false (sends "system": false)', short: 'false' },
        { value: 'true', name: 'true (sends "system": true)', short: 'true' },
      ],
      default: tristateOf(draft.system),
    });
    setTristate(draft, 'system', choice);
  },
};

export const REASON_PARTS: Part[] = [codePart, translationsPart, colorPart, activePart, systemPart];

/** The title of the summary: which reason the update is for. */
export const reasonTitle = (draft: Draft): string =>
  `Update of the inactivity reason ${draft.code === undefined ? '(no code yet)' : shown(draft.code)}`;

/** The summary shown before the menu: one line a field, what is sent or that it is left out. */
export function reasonSummary(payload: Draft, env: ComposeEnv): string {
  const { style } = env;
  const width = Math.max(...REASON_PARTS.map((p) => p.name.length));
  const lines = [style.bold(reasonTitle(payload))];
  for (const part of REASON_PARTS) lines.push(`  ${part.name.padEnd(width)}  ${part.summary(payload) ?? style.dim('not sent')}`);
  return `${lines.join('\n')}\n`;
}

export type ComposeReasonOptions = Pick<ComposeOptions, 'sendLabel' | 'cwd'>;

/** Asks for what the reason still lacks, shows a summary, and returns it when the user chooses to send. */
export function composeReason(draft: Draft, env: ComposeEnv, options: ComposeReasonOptions): Promise<Draft> {
  return compose(draft, env, {
    ...options,
    kind: 'reason',
    parts: REASON_PARTS,
    title: reasonTitle,
    summary: reasonSummary,
    validate: (d) => validateReason(d),
    order: REASON_ORDER,
  });
}
