import { badRequest } from '../http-error.js';

/** A numeric path id, or 400. */
export function numericId(id: string | undefined): number {
  if (id === undefined || !/^\d+$/.test(id))
    throw badRequest(`path id: expected a whole number, got '${id ?? ''}'`);
  return Number(id);
}
