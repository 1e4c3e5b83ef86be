import { maskProblem } from '../mask.js';
import { trimOf } from '../text/trim.js';

/**
 * What a token must be (docs/security.md, "The masking rule"; docs/configuration.md, "Tokens"):
 * printable ASCII without spaces, as an HTTP header carries it unchanged (the API sends it as
 * `Authorization: Bearer <token>`: docs/api.md), and distinctive enough to be masked by value
 * without masking ordinary output: at least 8 characters, not a number, and no part of what core
 * prints beside it (the base URL, the tenant, the API's paths). A token that breaks the rule is a
 * configuration error (exit 2) naming where it came from, found before anything is sent. Spaces
 * around it are not part of it: they are trimmed, as a server trims a header value.
 */

/** The hint of every refused token value. */
export const TOKEN_HINT =
  'a token is 8 or more printable ASCII characters, such as the one the service issued; see docs/configuration.md, "Tokens"';

/**
 * The token `raw` stands for (surrounding spaces trimmed), or why it cannot be used. A line break or
 * control character anywhere is refused rather than trimmed: it means the value was not meant as
 * written (a YAML block, a file read with its end). Never quotes the token.
 */
export function checkToken(raw: string, printed: readonly string[] = []): { token: string } | { problem: string } {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(raw)) return { problem: 'holds a line break or control character' };
  const token = trimOf(raw, ' ');
  if (token === '') return { problem: 'is empty' };
  if (/\s/.test(token)) return { problem: 'holds white space' };
  if (/[^\u0021-\u007e]/.test(token)) {
    return { problem: 'holds a character outside printable ASCII, which an HTTP header cannot carry unchanged' };
  }
  const problem = maskProblem(token);
  if (problem !== undefined) return { problem: `${problem}, so it could not be told apart from ordinary output to be masked` };
  if (printed.some((text) => text.includes(token))) {
    return { problem: 'is part of the base URL, the tenant or a path of the API, which core prints, so masking it would hide them' };
  }
  return { token };
}
