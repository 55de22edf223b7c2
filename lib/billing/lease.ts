import "server-only";
import { sql } from "@/db/sql";
import { relaxedDb } from "@/db/client";
import { DatabaseUnavailableError, isConnectionError, retryOnceIfCut } from "@/db/resilience";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";
import { onShutdown } from "@/lib/shutdown";
import { insufficientBalance } from "./internal";
import { currentLeaseOwner, formatLeaseOwner } from "./lease-owner";
import { releaseReservation } from "./release-hold";

/**
 * Credit leases: how a call holds its worst case without a database statement of its own.
 *
 * A process holds one reservation per busy company (a lease: an ordinary `reservations` row, so
 * the balance, the CHECK constraints and the reconciler treat it like any hold) and carves each
 * call's hold out of it in memory. The call's bill is drawn from the lease inside the statement
 * that stores the run, so a call costs no statement before the upstream request and nobody
 * updates the company row twice per call (it was the hot row under load: every call's hold
 * queued behind the previous call's settle).
 *
 * Exact, not approximate: a lease is taken from the unreserved balance under the row lock, a
 * draw never exceeds what is left of its lease (the statement checks it), and whatever a lease
 * still holds goes back when it retires. Sizing keeps leases small where money is short: a lease
 * is a whole number of the opening call's worst cases, at most LEASE_CALLS of them and at most
 * 1/LEASE_SHARE of the unreserved balance, never less than one; near a zero balance every lease
 * is exactly one call's hold, which is the old per-call reservation. What a lease holds is not
 * available to other processes until it retires (at most LEASE_IDLE_MS after its last call).
 *
 * A lease takes new calls for LEASE_MAX_AGE_MS; then, or after LEASE_IDLE_MS without calls, it
 * retires and is released as soon as its calls have been billed. A process opens a further lease
 * only when none of its leases has room, one at a time per company (concurrent calls share it).
 * A lease names its process (`owner`, lib/billing/lease-owner.ts): if the process dies, the
 * reconciler of a process that can tell it is gone (its restart, or any process on its host)
 * releases it within seconds (releaseLeasesOfGoneOwners); else it expires after LEASE_TTL_S like
 * any orphaned hold.
 * @internal
 */
export const LEASE_CALLS = 32;
const LEASE_SHARE = 8;
const LEASE_MAX_AGE_MS = 30_000;
/** @internal */
export const LEASE_IDLE_MS = 2_000;
/**
 * A lease's reservation expires this long after it was opened or last renewed; the reconciler
 * then releases it. The fallback for a crashed server whose end no other process can see (another
 * host, nothing restarted in its place): its credit comes back within minutes (a server that is
 * stopped releases its leases itself: releaseAllLeases; one that is restarted gives back its
 * predecessor's at start-up). A lease still serving calls is renewed by its draws and, for long
 * calls, by the sweeper.
 */
export const LEASE_TTL_S = 120;
const RENEW_BEFORE_MS = 60_000;
/**
 * A draw moves its lease's expiry to LEASE_TTL_S from now only once fewer seconds than this are
 * left: while the lease takes new calls its draws leave `expires_at` as it is, so their updates
 * change no indexed column and stay HOT (no new index entries per draw). Above RENEW_BEFORE_MS, so
 * a draw never makes the sweeper renew.
 * @internal
 */
export const DRAW_EXTENDS_BELOW_S = LEASE_TTL_S - LEASE_MAX_AGE_MS / 1000;

/** A lease's `expires_at` after a draw (see DRAW_EXTENDS_BELOW_S), for the draw's UPDATE of reservations. */
export const expiryAfterDraw = sql`CASE WHEN expires_at < now() + make_interval(secs => ${DRAW_EXTENDS_BELOW_S})
  THEN now() + make_interval(secs => ${LEASE_TTL_S}) ELSE expires_at END`;

interface Lease {
  id: string;
  companyId: string;
  /** What the reservation row holds, as far as this process's committed draws know. */
  heldMicro: number;
  /** The part of heldMicro not promised to calls in flight. */
  freeMicro: number;
  inflight: number;
  openedAt: number;
  lastUsedAt: number;
  /** Local clock time until which the reservation row is known to be unexpired. */
  expiresAt: number;
  renewing: boolean;
  retiring: boolean;
  released: boolean;
}

/** One call's hold: `amountMicro` carved out of `lease` (null when there was nothing to hold). */
export interface CreditHold {
  lease: { id: string; companyId: string } | null;
  amountMicro: number;
}

/** Per company, the leases taking new calls (oldest first). */
const active = new Map<string, Lease[]>();
/** Every lease not yet released, by reservation id. */
const byId = new Map<string, Lease>();
/** At most one lease being opened per company at a time: the others wait and share it. */
const opening = new Map<string, Promise<unknown>>();
let sweeper: NodeJS.Timeout | undefined;

/** A lease with room for `amount`; retires the ones past their age on the way. */
function findRoom(companyId: string, amount: number, now: number): Lease | undefined {
  const list = active.get(companyId);
  if (!list) return undefined;
  for (const lease of [...list]) {
    if (now - lease.openedAt >= LEASE_MAX_AGE_MS) void retire(lease);
    else if (lease.freeMicro >= amount) return lease;
  }
  return undefined;
}

function take(lease: Lease, amount: number, now: number): CreditHold {
  lease.freeMicro -= amount;
  lease.inflight++;
  lease.lastUsedAt = now;
  return { lease: { id: lease.id, companyId: lease.companyId }, amountMicro: amount };
}

/** Stops new calls on the lease; releases it now when no call is in flight (the promise). */
function retire(lease: Lease): Promise<void> | undefined {
  lease.retiring = true;
  const list = active.get(lease.companyId);
  if (list) {
    const i = list.indexOf(lease);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) active.delete(lease.companyId);
  }
  return lease.inflight === 0 ? release(lease) : undefined;
}

function release(lease: Lease): Promise<void> | undefined {
  if (lease.released) return undefined;
  lease.released = true;
  byId.delete(lease.id);
  return releaseWithRetry(lease, Date.now() + LEASE_TTL_S * 1000);
}

const RELEASE_RETRY_MS = 1_000;

/**
 * Releases the lease's reservation; while the database is unreachable, tries again every second
 * (the credit it holds is the company's, and an outage of a few seconds must not keep it away for
 * the whole LEASE_TTL_S). After that, or on any other error, the reconciler releases it.
 */
function releaseWithRetry(lease: Lease, giveUpAt: number): Promise<void> {
  return releaseReservation(relaxedDb, { id: lease.id, companyId: lease.companyId }).then(
    () => undefined,
    (err: unknown) => {
      if (
        (isConnectionError(err) || err instanceof DatabaseUnavailableError) &&
        Date.now() + RELEASE_RETRY_MS < giveUpAt
      ) {
        const timer = setTimeout(() => void releaseWithRetry(lease, giveUpAt), RELEASE_RETRY_MS);
        timer.unref();
        return;
      }
      log.warn({ err, reservationId: lease.id }, "could not release a credit lease; the reconciler will");
    },
  );
}

/**
 * Releases every lease of this process (the server is stopping and its requests have ended), so
 * their credit is back at once rather than after LEASE_TTL_S. A lease with a call still in flight
 * (the grace period ran out) is left to the reconciler.
 * @internal
 */
export async function releaseAllLeases(): Promise<void> {
  const pending: Promise<void>[] = [];
  for (const lease of [...byId.values()]) {
    const p = retire(lease);
    if (p) pending.push(p);
  }
  await Promise.all(pending);
}
onShutdown(releaseAllLeases);

/** Keeps a lease with calls in flight from expiring under them (a long stream, no draws meanwhile). */
function renew(lease: Lease, now: number): void {
  lease.renewing = true;
  relaxedDb
    .execute(
      sql`UPDATE reservations SET expires_at = now() + make_interval(secs => ${LEASE_TTL_S}) WHERE id = ${lease.id} AND status = 'held'`,
    )
    .then(
      () => void (lease.expiresAt = now + LEASE_TTL_S * 1000),
      (err: unknown) => log.warn({ err, reservationId: lease.id }, "could not renew a credit lease"),
    )
    .finally(() => (lease.renewing = false));
}

function startSweeper(): void {
  if (sweeper) return;
  sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const list of [...active.values()]) {
        for (const lease of [...list]) {
          if (
            lease.inflight === 0 &&
            (now - lease.lastUsedAt >= LEASE_IDLE_MS || now - lease.openedAt >= LEASE_MAX_AGE_MS)
          )
            void retire(lease);
        }
      }
      for (const lease of byId.values()) {
        if (lease.inflight > 0 && !lease.renewing && lease.expiresAt - now < RENEW_BEFORE_MS) renew(lease, now);
      }
      if (byId.size === 0 && sweeper) {
        clearInterval(sweeper);
        sweeper = undefined;
      }
    },
    Math.min(1000, LEASE_IDLE_MS / 2),
  );
  sweeper.unref();
}

/** How much a new lease takes: whole worst cases, at most LEASE_CALLS, at most 1/LEASE_SHARE of the unreserved balance, at least one. */
function leaseSize(amount: number, unreservedMicro: number): number {
  return amount * Math.min(LEASE_CALLS, Math.max(1, Math.floor(unreservedMicro / LEASE_SHARE / amount)));
}

/**
 * Takes a lease under the company row's lock: read the unreserved balance FOR UPDATE, then
 * reserve and insert the lease. (One statement that sized the lease in a FOR UPDATE CTE and
 * applied it in an UPDATE CTE broke the reserved ≤ balance CHECK when two servers opened leases
 * at once on PostgreSQL 18: the size was not recomputed for the row the UPDATE finally changed.)
 * @returns the lease's id and the micro-credits it holds: 0 when the unreserved balance cannot
 *   cover `amount`.
 */
async function reserveLease(companyId: string, amount: number): Promise<{ id: string; held: number }> {
  const id = newId("reservation");
  const owner = formatLeaseOwner(currentLeaseOwner());
  const held = await relaxedDb.transaction(async (tx) => {
    const [co] = (await tx.execute(sql`
      SELECT balance_micro - reserved_micro AS unreserved FROM companies WHERE id = ${companyId} FOR UPDATE`)) as unknown as {
      unreserved: string;
    }[];
    const unreserved = co ? Number(co.unreserved) : 0;
    if (unreserved < amount) return 0;
    const granted = leaseSize(amount, unreserved);
    await tx.execute(sql`
      WITH c AS (UPDATE companies SET reserved_micro = reserved_micro + ${granted} WHERE id = ${companyId} RETURNING id)
      INSERT INTO reservations (id, company_id, amount_micro, reference_id, owner, expires_at)
      SELECT ${id}, c.id, ${granted}, 'lease', ${owner}, now() + make_interval(secs => ${LEASE_TTL_S}) FROM c`);
    return granted;
  });
  return { id, held };
}

/**
 * Opens a lease. A transaction whose connection was cut is tried once more under a new id: cut
 * before its COMMIT it rolled back; cut during it, the first lease may stand unused until it
 * expires and the reconciler gives its credit back. Either beats answering the call 503.
 * @throws insufficient_balance (402) when the unreserved balance cannot cover `amount`.
 */
async function openLease(companyId: string, amount: number): Promise<Lease> {
  const { id, held } = await retryOnceIfCut(() => reserveLease(companyId, amount));
  if (held === 0) throw insufficientBalance(amount);
  const now = Date.now();
  const lease: Lease = {
    id,
    companyId,
    heldMicro: held,
    freeMicro: held,
    inflight: 0,
    openedAt: now,
    lastUsedAt: now,
    expiresAt: now + LEASE_TTL_S * 1000,
    renewing: false,
    retiring: false,
    released: false,
  };
  byId.set(id, lease);
  const list = active.get(companyId);
  if (list) list.push(lease);
  else active.set(companyId, [lease]);
  startSweeper();
  return lease;
}

/** Opens a lease; when short, first gives back this process's idle leases of the company and tries once more. */
async function openLeaseOrReclaim(companyId: string, amount: number): Promise<void> {
  try {
    await openLease(companyId, amount);
  } catch (err) {
    const idle = (active.get(companyId) ?? []).filter((l) => l.inflight === 0);
    // Only a refusal for lack of credit can be helped by giving idle leases back.
    if (!(err instanceof AppError && err.code === "insufficient_balance") || idle.length === 0) throw err;
    await Promise.all(idle.map((l) => retire(l)));
    await openLease(companyId, amount);
  }
}

/**
 * Holds `amountMicro` of the company's credit for one call: from one of this process's leases
 * when one has room (no statement), else from a new lease (one statement).
 * @throws insufficient_balance (402) when the unreserved balance cannot cover it.
 */
export async function holdCredit(companyId: string, amountMicro: number): Promise<CreditHold> {
  const amount = Math.max(0, Math.round(amountMicro));
  if (amount === 0) return { lease: null, amountMicro: 0 };
  for (;;) {
    const lease = findRoom(companyId, amount, Date.now());
    if (lease) return take(lease, amount, Date.now());
    const pending = opening.get(companyId);
    if (pending) {
      // Someone in this process is opening a lease for this company: it may cover us too.
      await pending.catch(() => undefined);
      continue;
    }
    const p = openLeaseOrReclaim(companyId, amount);
    opening.set(companyId, p);
    try {
      await p;
    } finally {
      opening.delete(companyId);
    }
  }
}

/**
 * Ends a call's hold after its statement committed: `drawnMicro` is what that statement drew from
 * the lease (0 when nothing was billed from it).
 */
export function endHold(hold: CreditHold, drawnMicro: number): void {
  if (!hold.lease) return;
  const lease = byId.get(hold.lease.id);
  if (!lease) return;
  if (drawnMicro > 0) lease.expiresAt = Math.max(lease.expiresAt, Date.now() + DRAW_EXTENDS_BELOW_S * 1000);
  lease.heldMicro -= drawnMicro;
  lease.freeMicro += hold.amountMicro - drawnMicro;
  lease.inflight--;
  if (lease.inflight === 0 && lease.retiring) release(lease);
}

/**
 * For tests: the leases this process has taking calls for a company.
 * @internal
 */
export function leaseSnapshot(companyId: string): { heldMicro: number; freeMicro: number; inflight: number }[] {
  return (active.get(companyId) ?? []).map((l) => ({
    heldMicro: l.heldMicro,
    freeMicro: l.freeMicro,
    inflight: l.inflight,
  }));
}
