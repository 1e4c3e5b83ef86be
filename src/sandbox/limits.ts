/**
 * The sandbox's own limits that other modules name in their messages and schemas (docs/sandbox.md):
 * a leaf, so that the test-file schema (src/testing/schema.ts) reads a limit without loading the
 * sandbox's state.
 */

/** The longest customer message, in UTF-16 code units (a sandbox choice, docs/sandbox.md), as the MESSAGE webhook's contract states it. */
export { MAX_CUSTOMER_TEXT as maxCustomerText } from '../payload/customer-text.js';
