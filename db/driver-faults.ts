/**
 * postgres.js 3.4 sends small writes from a setImmediate that can fire after the connection closed,
 * with its socket gone (porsager/postgres#1154, #1208). The TypeError escapes every caller as an
 * uncaught exception. The query it carried was already rejected, but that connection keeps a stale
 * write timer and never sends a small write again: its pool has to be replaced (renewPools).
 */
export function isClosedSocketWrite(err: unknown): boolean {
  if (!(err instanceof TypeError) || !err.message.includes("reading 'write'")) return false;
  const stack = err.stack ?? "";
  return stack.includes("nextWrite") && /postgres[\\/](?:cjs[\\/])?src[\\/]connection\.js/.test(stack);
}
