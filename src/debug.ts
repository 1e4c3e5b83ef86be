/**
 * The CORE_DEBUG=1 view of an error: its stack and the stack of each cause, nothing else. An error
 * object is never inspected whole: got's errors carry the request's options, headers included, and
 * util.inspect would print the Authorization header. The text is also scrubbed of anything shaped
 * like a credential, on top of the masking of every registered secret that ctx.err applies, so a
 * credential the program never registered (a header a library added) cannot slip through either.
 */

const MAX_CAUSES = 5;

/** Masks credential-shaped text: `Bearer x`, `Basic x`, `authorization: x` and a URL's user:password@. */
export function scrubCredentials(text: string): string {
  return text
    .replace(/\b(Bearer|Basic|Token)\s+[^\s"',;]+/gi, '$1 ********')
    .replace(/\b((?:proxy-)?authorization|x-api-key|api-key|cookie)(["']?\s*[:=]\s*["']?)[^"'\n,}]+/gi, '$1$2********')
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1********@');
}

/** One error's stack and its causes' (up to five deep), scrubbed, as lines for stderr. */
export function debugTrace(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && current !== undefined && current !== null; depth += 1) {
    const text = current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : describe(current);
    parts.push(`${depth === 0 ? '' : 'caused by: '}${scrubCredentials(text)}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return `${parts.join('\n')}\n`;
}

/** A thrown value that is not an Error: only its kind, as its content is unknown. */
function describe(value: unknown): string {
  if (typeof value === 'string') return `thrown string: ${value}`;
  return `thrown ${value === null ? 'null' : typeof value}`;
}
