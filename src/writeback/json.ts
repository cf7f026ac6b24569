/** A JSON object: an outbox body, a record read back, a plan row's values. */
export type Json = Record<string, unknown>;
