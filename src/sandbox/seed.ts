import type { Problem } from '../errors.js';
import { validateReason, type Reason } from '../payload/index.js';

/**
 * The inactivity reasons every tenant starts with unless `reasons` says otherwise. The service's
 * own set is not shown (docs/api.md, gap 29); these are plausible examples with the fields of the
 * API's request example: two locales, a colour, and both active and inactive ones.
 */
export const defaultReasons: readonly unknown[] = [
  {
    code: 'LUNCH',
    reasons: [
      { locale: 'en', name: 'Lunch' },
      { locale: 'ru', name: 'Обед' },
    ],
    color: '#FFA500',
    active: true,
    system: false,
  },
  {
    code: 'MEETING',
    reasons: [
      { locale: 'en', name: 'Meeting' },
      { locale: 'ru', name: 'Совещание' },
    ],
    color: '#1E90FF',
    active: true,
    system: false,
  },
  {
    code: 'TRAINING',
    reasons: [
      { locale: 'en', name: 'Training' },
      { locale: 'ru', name: 'Обучение' },
    ],
    color: '#2E8B57',
    active: false,
    system: false,
  },
  {
    code: 'OTHER',
    reasons: [
      { locale: 'en', name: 'Other' },
      { locale: 'ru', name: 'Другое' },
    ],
    color: '#808080',
    active: true,
    system: false,
  },
];

/** Whether a stored reason counts as active: `active` absent means true (docs/api.md, reason field rule 4). */
export function isActive(reason: Reason): boolean {
  return reason.active ?? true;
}

/** The reason as the sandbox keeps it: the validated value with the API's default for `active` written out. */
export function storedReason(reason: Reason): Reason {
  return { ...reason, active: isActive(reason) };
}

export type PreparedReasons = { ok: true; reasons: Reason[] } | { ok: false; problems: Problem[] };

/**
 * Checks a seed list of reasons with the reason schema (the only copy of its rules), then what
 * only a set of reasons can break: codes must be unique, since a code identifies the reason to
 * update, and no more than `maxActiveReasons` may be active. Paths are `[index].field`.
 */
export function prepareReasons(input: readonly unknown[], maxActiveReasons: number): PreparedReasons {
  const problems: Problem[] = [];
  const reasons: Reason[] = [];
  const firstIndexOfCode = new Map<string, number>();
  input.forEach((item, index) => {
    const result = validateReason(item);
    if (!result.ok) {
      for (const problem of result.problems) problems.push({ ...problem, path: indexedPath(index, problem.path) });
      return;
    }
    const reason = storedReason(result.value);
    const earlier = firstIndexOfCode.get(reason.code);
    if (earlier !== undefined) {
      problems.push({ path: `[${index}].code`, message: `'${reason.code}' is also the code of [${earlier}]; codes must be unique` });
      return;
    }
    firstIndexOfCode.set(reason.code, index);
    reasons.push(reason);
  });
  const active = reasons.filter(isActive).length;
  if (active > maxActiveReasons) {
    problems.push({ path: '', message: `${active} reasons are active, more than the limit of ${maxActiveReasons} active reasons` });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, reasons };
}

function indexedPath(index: number, path: string): string {
  if (path === '') return `[${index}]`;
  return path.startsWith('[') ? `[${index}]${path}` : `[${index}].${path}`;
}
