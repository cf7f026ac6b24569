import { OhsError } from '../errors.js';

/** `ohs outbox resolve ID`: no such item, or one that is not waiting for a decision. */
export class OutboxItemError extends OhsError {
  override name = 'OutboxItemError';
  override readonly exitCode = 2;
  constructor(message: string) {
    super('OUTBOX_ITEM', message);
  }
}

/** `ohs apply` ended with items failed or with an unknown outcome (exit status 5). */
export class ApplyIncompleteError extends OhsError {
  override name = 'ApplyIncompleteError';
  override readonly exitCode = 5;
  constructor(message: string, detail?: unknown) {
    super('APPLY_INCOMPLETE', message, { detail });
  }
}

/** `ohs plan` above the confirmation threshold without a yes (exit status 2). */
export class ConfirmationNeededError extends OhsError {
  override name = 'ConfirmationNeededError';
  override readonly exitCode = 2;
  constructor(message: string) {
    super('CONFIRMATION_NEEDED', message);
  }
}

/**
 * `ohs apply` held items instead of sending them: the check at the moment of sending found the
 * change wrong (a payment above the balance read, an invoice cancelled, a target deleted). Exit
 * status 5, like APPLY_INCOMPLETE: the outbox is not done; a person decides (re-plan or release).
 */
export class ApplyHeldError extends OhsError {
  override name = 'ApplyHeldError';
  override readonly exitCode = 5;
  constructor(message: string, detail?: unknown) {
    super('APPLY_HELD', message, { detail });
  }
}

/**
 * `ohs apply` sent a change and the service's state after it is not what the change alone makes:
 * a payment's balance read back is not the balance before less the amount (beyond a cent). Paid
 * twice (by another mirror, another machine), or changed upstream meanwhile: a person checks the
 * invoice and settles the item (`ohs outbox resolve ID --applied`). Exit status 5.
 */
export class ApplyConflictError extends OhsError {
  override name = 'ApplyConflictError';
  override readonly exitCode = 5;
  constructor(message: string, detail?: unknown) {
    super('APPLY_CONFLICT', message, { detail });
  }
}
