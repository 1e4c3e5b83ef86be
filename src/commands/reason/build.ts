import { UsageError } from '../../errors.js';
import { hasEditorKeys, isRecord, withoutEditorKeys } from '../../input/fields.js';

/**
 * The inactivity reason fields `core reason update` takes from flags (docs/reasons.md, "The
 * fields"). Values are passed on as given, so the reason schema in src/payload/ (the single
 * source of every rule) reports a bad one with its path; only the flag syntax is checked here.
 */
export interface ReasonFields {
  code?: string;
  /** `--name LOCALE=TEXT`, in the order given. */
  names?: string[];
  color?: string;
  /** true for --active, false for --inactive, undefined when neither is given: the field is not sent. */
  active?: boolean;
  /** true for --system, false for --no-system, undefined when neither is given. */
  system?: boolean;
}

/** Parses `--name LOCALE=TEXT` at the first `=`, so the text may hold `=` itself. */
export function parseName(flag: string): { locale: string; name: string } {
  const at = flag.indexOf('=');
  if (at < 0) {
    throw new UsageError(`--name takes LOCALE=TEXT, got ${JSON.stringify(flag)}`, {
      hint: 'for example --name en=Lunch --name de=Mittagspause',
    });
  }
  return { locale: flag.slice(0, at).trim(), name: flag.slice(at + 1) };
}

/** Whether any flag sets a field of the reason. */
export function hasReasonFields(fields: ReasonFields): boolean {
  return (
    fields.code !== undefined ||
    (fields.names?.length ?? 0) > 0 ||
    fields.color !== undefined ||
    fields.active !== undefined ||
    fields.system !== undefined
  );
}

/** The flags that name one particular reason, and so cannot apply to every reason of a batch. */
export function singleReasonFlags(fields: ReasonFields): string[] {
  const flags: string[] = [];
  if (fields.code !== undefined) flags.push('--code');
  if ((fields.names?.length ?? 0) > 0) flags.push('--name');
  return flags;
}

/**
 * The reason the flags describe, fields in the API's order (docs/api.md, "Inactivity reason").
 * `active` is left out unless --active or --inactive is given: the service then applies its own
 * default, which the API gives as true (docs/api.md, reason field rule 4).
 */
export function reasonFromFlags(fields: ReasonFields): Record<string, unknown> {
  return layFields({}, fields) as Record<string, unknown>;
}

/**
 * Lays the flags over one reason read from a file: each flag replaces the file's field, and
 * --name replaces the whole `reasons` array (as a repeatable flag does for `core reply`). A value
 * that is not an object is returned as it is, for the schema to report.
 */
export function layFields(item: unknown, fields: ReasonFields): unknown {
  if (!isRecord(item)) return item;
  // Nothing to lay over and nothing to take out: the item itself (a batch prepares every item twice).
  if (!hasReasonFields(fields) && !hasEditorKeys(item)) return item;
  const reason: Record<string, unknown> = withoutEditorKeys(item);
  if (fields.code !== undefined) reason.code = fields.code;
  if ((fields.names?.length ?? 0) > 0) reason.reasons = fields.names!.map(parseName);
  if (fields.color !== undefined) reason.color = fields.color;
  if (fields.active !== undefined) reason.active = fields.active;
  if (fields.system !== undefined) reason.system = fields.system;
  return reason;
}
