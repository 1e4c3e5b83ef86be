// @ts-check
// Which events are refusals of the bot's requests (docs/sandbox.md, "Events"). One copy: the page
// reads it as it is served, and core customer, core test, core check-bot and the library through
// src/sandbox/events.ts.

/**
 * Whether an event is a refusal of one of the bot's API requests: a request refused before it got
 * as far as an answer (`api.request`), or an answer or greeting the sandbox checked and refused; each
 * with a status of 400 or more.
 *
 * @param {{ type: string, status?: unknown }} event
 * @returns {boolean}
 */
export function isRefusal(event) {
  const status = typeof event.status === 'bigint' ? Number(event.status) : event.status;
  return (
    (event.type === 'api.request' || event.type === 'bot.answer' || event.type === 'greeting') &&
    typeof status === 'number' &&
    status >= 400
  );
}
