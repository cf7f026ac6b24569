import type { Mirror, MirrorLock } from './store.js';

/**
 * One sync (or apply) at a time per mirror: the engine's named lock (`<engine>/locks.ts`).
 * Throws LockedError naming the holder while another live process holds it; a lock whose holder
 * died is taken over.
 */
export function acquireLock(mirror: Mirror, name = 'sync'): Promise<MirrorLock> {
  return mirror.lock(name);
}
