import * as z from 'zod/mini';
import { has, httpUrl, isRecord, text } from './checks.js';
import type { Path, RawProblem } from './messages.js';

/** A field the API's examples carry without its type or meaning (docs/api.md, gap 3): any JSON value passes. */
function exampleField(description: string) {
  return z.optional(z.unknown().check(z.describe(description)));
}

/**
 * One attachment of a bot answer (docs/api.md, "Attachment"). The url is required: an attachment
 * without a file is nothing to show. name and type are optional, as the API marks no requirement (docs/api.md, gap 16).
 */
export const attachmentSchema = z
  .strictObject({
    url: text('File URL: an absolute http or https URL, up to 4000 characters (UTF-16 code units).', 4000).check(...httpUrl()),
    name: z.optional(
      text(
        'File name, up to 1000 characters. For an image to display, the name must include the file extension, or type must be given.',
        1000,
      ),
    ),
    type: z.optional(text('MIME type of the file, up to 256 characters.', 256)),
    // docs/api.md, gap 3: the examples also carry these fields; their types and meaning are not shown,
    // so any JSON value passes rather than rejecting a payload copied from the API's examples.
    size: exampleField("Carried by the API's examples; type and meaning not shown."),
    contentType: exampleField("Carried by the API's examples; type and meaning not shown."),
    fileId: exampleField("Carried by the API's examples; type and meaning not shown."),
    state: exampleField("Carried by the API's examples; type and meaning not shown."),
    errorCode: exampleField("Carried by the API's examples; type and meaning not shown."),
    errorMessage: exampleField("Carried by the API's examples; type and meaning not shown."),
  })
  .check(
    z.describe(
      'An attachment of the bot answer. Warning (not an error): an image displays correctly only when its name has a file extension or its MIME type is given.',
    ),
  );

export type Attachment = z.output<typeof attachmentSchema>;

/** A name ends in an extension when a dot follows at least one other character: `photo.jpg`, not `.env`. */
const EXTENSION = /[^./\\]\.[A-Za-z0-9]+$/;

/**
 * docs/api.md, attachment rule 2: for an image to display correctly, its name must include the file
 * extension, or its type must be given. The API states it as advice about display, not a reason to
 * reject the request, so it is a warning.
 */
export function attachmentWarnings(value: unknown, path: Path): RawProblem[] {
  if (!isRecord(value)) return [];
  const name = value.name;
  const hasExtension = typeof name === 'string' && EXTENSION.test(name);
  if (hasExtension || has(value, 'type')) return [];
  const which = typeof name === 'string' ? `the name ${JSON.stringify(name)} has no file extension` : 'there is no name';
  return [{ path, message: `${which} and no type is given: an image may not display; add the extension or the MIME type` }];
}
