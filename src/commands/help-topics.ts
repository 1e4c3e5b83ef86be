/**
 * The help topics of `core help <topic>`, as gh has `gh help environment`: their names and one-line
 * summaries. A leaf with no imports, read by the program (`core help` lists them, and a topic is
 * printed without building the commands) and by the completion scripts (`core help <TAB>`). Their
 * text is in ./text.ts, loaded only when one is printed.
 */

export const TOPICS = {
  environment: 'every environment variable core reads',
  'exit-codes': 'what each exit code means, for scripts',
  config: 'the config file: where it is found, its keys, which value wins',
  formats: 'the files core reads and writes, and their formats',
  telemetry: 'what core sends, and to whom: nothing of its own',
} as const;

export type TopicName = keyof typeof TOPICS;

export const TOPIC_NAMES = Object.keys(TOPICS) as TopicName[];

export function isTopic(name: string): name is TopicName {
  return Object.hasOwn(TOPICS, name);
}

/** Where the guides are read on the web (also shipped in the package, under docs/). */
export const DOCS_URL = 'https://github.com/core-cli/core-cli/tree/main/docs';

/** What main answers without commander: a help topic, the short usage of a bare `core`, the version. */
export type Direct = { kind: 'topic'; name: TopicName } | { kind: 'usage' } | { kind: 'version'; json: boolean };
