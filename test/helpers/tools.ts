import { spawnSync } from 'node:child_process';
import { describe, it, type TestFunction } from 'vitest';
import list from './tools.json' with { type: 'json' };

/**
 * The one rule for tests that need a program outside Node (a shell, tmux, openssl): they run and
 * FAIL when it is missing, with a message naming the program and how to install it. A developer
 * without the tools can skip those tests knowingly with CORE_TEST_ALLOW_SKIP=1; nothing is ever
 * skipped silently. test/helpers/tools.json lists every such tool with its Debian package, and
 * scripts/test.mjs installs the missing ones before the run (as root, with apt-get) or names them.
 */

const tools = list.tools;
export type Tool = keyof typeof tools;

/** Set to 1 to skip, rather than fail, the tests whose tools are missing. */
export const ALLOW_SKIP_VARIABLE = list.allowSkipVariable;

const allowSkip = process.env[ALLOW_SKIP_VARIABLE] === '1';
const found = new Map<Tool, boolean>();

/** Whether `tool` runs here (its probe, such as `zsh --version`, exits 0). */
export function hasTool(tool: Tool): boolean {
  let present = found.get(tool);
  if (present === undefined) {
    const [command, ...args] = tools[tool].probe;
    present = spawnSync(command!, args, { stdio: 'ignore' }).status === 0;
    found.set(tool, present);
  }
  return present;
}

/** What a test that needs a missing `tool` fails with. */
export function missingToolMessage(tool: Tool): string {
  const { debian, usedBy } = tools[tool];
  return (
    `${tool} is not installed, and it is needed by ${usedBy}. Install it (Debian, Ubuntu: apt-get install -y ${debian}), ` +
    `or set ${ALLOW_SKIP_VARIABLE}=1 to skip these tests knowingly.`
  );
}

export interface Gated {
  describe(title: string, body: () => void): void;
  it(title: string, fn: TestFunction): void;
}

/** A describe block and a test that need `tool`: run when it is there, else failed or (allowed) skipped. */
export function withTool(tool: Tool): Gated {
  return requiring(tool, hasTool(tool), () => missingToolMessage(tool));
}

/**
 * The same rule for anything else a test needs from the machine (`what`, such as "a non-loopback
 * IPv4 address"): when it is not `present`, the tests fail with `message()` unless skipping is allowed.
 */
export function requiring(what: string, present: boolean, message: () => string): Gated {
  const title = (text: string) => `${text} (needs ${what})`;
  const missing = () => {
    throw new Error(message());
  };
  return {
    describe: (text, body) => {
      if (present) describe(text, body);
      else if (allowSkip) describe.skip(title(text), body);
      // The body is not even defined: its hooks would fail first, with a less useful message.
      else describe(title(text), () => it(`cannot run: ${what} is missing`, missing));
    },
    it: (text, fn) => {
      if (present) it(text, fn);
      else if (allowSkip) it.skip(title(text), fn);
      else it(title(text), missing);
    },
  };
}
