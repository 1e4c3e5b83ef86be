import type { IncomingMessage } from 'node:http';
import type { EventStream, PlatformEvent, SandboxAnswer } from './connection.js';
import { parseEvent } from '../sandbox/event-json.js';
import { jsonOf, startRequest, type ClientInit } from './http.js';

/**
 * The sandbox's event stream over HTTP (GET /_sandbox/events, docs/sandbox.md, "Events"): Server-Sent
 * Events, one JSON event in the `data:` lines of each block. The reading of the text is
 * `createEventParser` alone, in the shape of eventsource-parser's (`feed(chunk)`, an event per
 * block), so that another reader takes its place without touching the rest.
 */

/** The event stream was answered with another status than 200. */
export class StreamRefused extends Error {
  constructor(readonly answer: SandboxAnswer) {
    super(`the sandbox answered ${answer.status} to the event stream`);
  }
}

export interface EventParser {
  /** Text as it arrives, cut anywhere; each complete block is handed on as it ends. */
  feed(chunk: string): void;
}

/**
 * Reads the stream's text: a block ends at a blank line, its `data: ` lines joined by line breaks are
 * its data, and a block without data (a comment, a keep-alive) is passed over.
 */
export function createEventParser(onData: (data: string) => void, onTooLarge: () => void = () => {}): EventParser {
  let buffer = '';
  return {
    feed(chunk) {
      // Only the new text is searched for the end of a block: what came before has none.
      const from = Math.max(0, buffer.length - 1);
      buffer += chunk;
      if (buffer.indexOf('\n\n', from) === -1) {
        // A block without end past the bound: the stream is given up.
        if (buffer.length > MAX_SANDBOX_EVENT_BYTES) onTooLarge();
        return;
      }
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data !== '') onData(data);
      }
    },
  };
}

/**
 * Opens GET /_sandbox/events with `query` and hands each event, read from its JSON form
 * (src/sandbox/event-json.ts), to `onEvent`; a message that is not an event this version knows (a
 * type a later sandbox added) is passed over. A status other than 200 rejects `opened` with `StreamRefused`, so the caller can report it. The
 * time limit covers the answer to the request; once open, the stream lives until it ends or close().
 */
export function openEventStream(init: ClientInit, query: string, onEvent: (event: PlatformEvent) => void): EventStream {
  let endStream!: () => void;
  const ended = new Promise<void>((resolve) => (endStream = resolve));
  let close = () => {};
  const opened = new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      endStream();
      reject(error);
    };
    const { req, answered } = startRequest(init, 'GET', `/_sandbox/events${query}`, { Accept: 'text/event-stream' }, fail);
    close = () => req.destroy();
    req.on('response', (res: IncomingMessage) => {
      answered();
      if (res.statusCode !== 200) refuse(res, fail);
      else {
        resolve();
        read(res, onEvent, endStream);
      }
    });
    req.end();
  });
  // A rejection nobody awaits yet must not end the process; the caller awaits `opened`.
  opened.catch(() => {});
  return { opened, ended, close: () => close() };
}

/** The most one event of the stream may be (docs/sandbox.md, "Bounds"): a bot answer of the sandbox's 1 MB, its every character escaped. */
export const MAX_SANDBOX_EVENT_BYTES = 16 * 1024 * 1024;
/** The most kept of the body of a refused stream, for its message. */
const MAX_REFUSAL_BYTES = 64 * 1024;

/** An answer other than 200, read up to MAX_REFUSAL_BYTES and handed on as `StreamRefused`. */
function refuse(res: IncomingMessage, fail: (error: Error) => void): void {
  let text = '';
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    fail(new StreamRefused({ status: res.statusCode ?? 0, text, json: jsonOf(text) }));
  };
  res.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    if (text.length > MAX_REFUSAL_BYTES) {
      text = text.slice(0, MAX_REFUSAL_BYTES);
      res.destroy();
      finish();
    }
  });
  res.on('end', finish);
  res.on('close', finish);
}

/** The events of an open stream, each event read to `onEvent`, until the stream ends. */
function read(res: IncomingMessage, onEvent: (event: PlatformEvent) => void, endStream: () => void): void {
  const parser = createEventParser(
    (data) => {
      const event = eventOf(data);
      if (event !== undefined) onEvent(event);
    },
    () => res.destroy(),
  );
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => parser.feed(chunk));
  res.on('end', endStream);
  res.on('close', endStream);
  res.on('error', endStream);
}

/** An event from its JSON form; undefined for one this version does not know. */
function eventOf(text: string): PlatformEvent | undefined {
  try {
    return parseEvent(text);
  } catch {
    return undefined;
  }
}
