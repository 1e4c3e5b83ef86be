/**
 * Trimming runs of characters from the ends of a string, in linear time.
 *
 * A regular expression such as `/\/+$/` or `/ +$/` looks like the way to do this, but it is not
 * anchored at its start: V8 tries it at every position, and from each one scans the whole run before
 * it fails on the character after it. On a long run followed by anything else that is quadratic: a
 * base URL of 60,000 slashes and a letter took 4.7 s, a token padded with as many spaces 2.6 s
 * (bench/trim.mjs measures these). These functions walk from the end once.
 */

/** `text` without the characters of `chars` at its end. */
export function trimEndOf(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the characters of `chars` at its start. */
export function trimStartOf(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text[start]!)) start += 1;
  return start === 0 ? text : text.slice(start);
}

/** `text` without the characters of `chars` at either end. */
export function trimOf(text: string, chars: string): string {
  return trimStartOf(trimEndOf(text, chars), chars);
}

/** `text` without its trailing line breaks (`\n` or `\r\n`, any number); a lone `\r` stays. */
export function trimLineBreaks(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '\n') {
    end -= 1;
    if (end > 0 && text[end - 1] === '\r') end -= 1;
  }
  return end === text.length ? text : text.slice(0, end);
}
