import type { GlobalOptions } from '../definition.js';

/** What `core doctor` reports, as data (docs/doctor.md): the human view and --json render the same object. */

export interface DoctorOptions {
  global: GlobalOptions;
  json: boolean;
  allowHttp: boolean;
  timeout?: string;
  caFile?: string;
}

export type DoctorStatus = 'pass' | 'fail' | 'skip';

export interface DoctorCheck {
  /** Stable, for scripts: `node`, `config.file`, `token`, `network.connection`, `clock`, ... */
  id: string;
  /** For people: `config file`, `token`. */
  name: string;
  /** `skip`: the check does not apply here (no base URL, not a sandbox), or depends on one that failed. */
  status: DoctorStatus;
  /** What was found; never a secret. */
  message: string;
  /** Where the value came from: `env CORE_TOKEN`, `profile staging in /home/u/.corerc`. */
  source?: string;
  /** What to do, for a failed check. */
  fix?: string;
}

export interface DoctorReport {
  /** Every check passed or was skipped: the exit code is 0. */
  ok: boolean;
  checks: DoctorCheck[];
  summary: { checks: number; passed: number; failed: number; skipped: number };
}

export function skip(id: string, name: string, message: string): DoctorCheck {
  return { id, name, status: 'skip', message };
}
