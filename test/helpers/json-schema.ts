// ajv is not a dependency of core: it is in node_modules for the mutation-testing tools, and serves
// the tests as a validator of draft 2020-12 independent of zod, reading the JSON Schemas as an
// editor or a bot's own tests do. (zod's fromJSONSchema cannot: it refuses dependentRequired,
// dependentSchemas and not, which the payload schemas use.)
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

/**
 * A validator of one JSON Schema: the errors of a value, none when it is valid. Unknown keywords
 * throw (a misspelt keyword would otherwise be ignored); formats (int64, uri) are annotations, as
 * draft 2020-12 has them by default and editors read them.
 */
export function jsonSchemaValidator(schema: Record<string, unknown>): (value: unknown) => ErrorObject[] {
  const ajv = new Ajv2020({ strictSchema: true, strictTypes: false, validateFormats: false, allErrors: true });
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? [] : [...(validate.errors ?? [])]);
}
