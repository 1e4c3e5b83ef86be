/**
 * The ids of `core check-bot`'s checks and its reporters, in a module that imports nothing, so the
 * command's definition (options, completion, help) has them without loading the battery.
 */

export const CHECK_IDS = [
  'answers',
  'signature.missing',
  'signature.tampered',
  'signature.wrong-secret',
  'signature.rotation',
  'signature.raw-body',
  'timestamp.stale',
  'timestamp.future',
  'replay',
  'retry.answerId',
  'email.addressing',
  'unknown-fields',
  'ids.precision',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

export const CHECK_REPORTERS = ['human', 'junit', 'tap', 'json'] as const;
export type CheckReporter = (typeof CHECK_REPORTERS)[number];
