/**
 * The longest customer message, in UTF-16 code units: a sandbox choice (docs/sandbox.md, "The
 * customer's side"), and the bound of the MESSAGE webhook's `message.text` (message.ts). A leaf that
 * imports nothing, so the sandbox's limits and the test-file schema name it without loading zod.
 */
export const MAX_CUSTOMER_TEXT = 4000;
