/** The methods `core api` sends, in a module of their own so the command's definition loads nothing more. */
export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ApiMethod = (typeof API_METHODS)[number];
