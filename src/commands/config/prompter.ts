import { Writable } from 'node:stream';
import type { Context } from '../../context.js';
import { InterruptedError } from '../../errors.js';

/**
 * The questions `core config init` asks, behind an interface so tests can answer them without a
 * terminal. The real one is built on single inquirer prompts, imported only when a question is asked
 * (`@inquirer/prompts` as a whole would also load the editor prompt and iconv-lite).
 */
export interface Prompter {
  input(question: { message: string; default?: string; validate?: (value: string) => true | string }): Promise<string>;
  password(question: { message: string; validate?: (value: string) => true | string }): Promise<string>;
  select<T extends string>(question: {
    message: string;
    choices: Array<{ name: string; value: T; description?: string }>;
    default?: T;
  }): Promise<T>;
}

/**
 * Prompts on the context's streams. They are drawn on stderr, so that stdout carries only the
 * command's result; Ctrl-C (or the context's abort signal) becomes an InterruptedError (exit 130).
 */
export function inquirerPrompter(ctx: Context): Prompter {
  // Each prompt ends its output stream when it is answered, and piping passes that end on to any
  // stream but process.stdout and process.stderr; a stream of our own per prompt keeps the
  // context's stderr open for the next prompt and for the command's messages.
  const output = () => {
    const target = ctx.streams.stderr;
    return Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          target.write(chunk, (error) => done(error ?? undefined));
        },
      }),
      { isTTY: target.isTTY, columns: target.columns },
    );
  };
  const context = () => ({ input: ctx.streams.stdin, output: output(), signal: ctx.signal });
  const interrupted = (error: unknown): never => {
    const name = (error as Error | undefined)?.name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new InterruptedError('cancelled, nothing written');
    throw error;
  };
  return {
    async input(question) {
      const { default: input } = await import('@inquirer/input');
      return input(question, context()).catch(interrupted);
    },
    async password(question) {
      const { default: password } = await import('@inquirer/password');
      return password({ ...question, mask: true }, context()).catch(interrupted);
    },
    async select(question) {
      const { default: select } = await import('@inquirer/select');
      return select(question, context()).catch(interrupted);
    },
  };
}
