import { acquireLock, displayBaseUrl, type Mirror, type MirrorLock, machineLock } from '../mirror/index.js';

/**
 * One writer per service. The money is the service's, not the mirror's: two mirrors of one
 * service (two copies of a file, two schemas of a database) would otherwise each check a balance,
 * each see it unpaid and each pay. So an apply holds, before it reads or claims anything:
 * - the mirror's `apply` lock (one apply per mirror, across hosts on PostgreSQL);
 * - the machine's lock of the service (`apply <base URL>`, the URL without credentials, query or
 *   trailing slash), whatever mirror this user's `ohs` opened (src/mirror/machine-lock.ts);
 * - on PostgreSQL, the database's lock of the service (an advisory lock keyed by the same name
 *   alone), whatever schema the mirror is in and whatever host runs the apply.
 * Each is tried, never waited for: the one found held stops the apply with LOCKED naming its
 * holder, and the ones taken are given back. What no lock covers (two machines with mirrors of
 * their own, two databases) the read-back of each payment detects (a conflict; docs/security.md).
 */
export async function applyLocks(mirror: Mirror, baseUrl: string): Promise<MirrorLock> {
  const service = displayBaseUrl(baseUrl);
  const name = `apply ${service}`;
  const refusal = (where: string) => (holder: string) =>
    `another apply to ${service} is running ${where} (${holder}); wait for it to finish`;
  const held: MirrorLock[] = [];
  const release = async () => {
    let first: unknown;
    for (const lock of held.splice(0).reverse())
      await lock.release().catch((err: unknown) => {
        first ??= err;
      });
    if (first !== undefined) throw first;
  };
  try {
    held.push(await acquireLock(mirror, 'apply'));
    held.push(await machineLock(name, refusal('on this machine, from this mirror or another one')));
    const shared = await mirror.sharedLock(
      name,
      refusal(`against ${mirror.location} from a mirror of the same database`),
    );
    if (shared !== undefined) held.push(shared);
  } catch (err) {
    await release().catch(() => undefined);
    throw err;
  }
  return { release };
}
