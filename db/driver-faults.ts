/**
 * postgres.js 3.4 can send small writes after the connection closed (porsager/postgres#1154,
 * #1208): the TypeError escapes as uncaught, and that connection never writes small messages again,
 * so its pool is replaced (renewPools).
 */
export function isClosedSocketWrite(err: unknown): boolean {
  if (!(err instanceof TypeError) || !err.message.includes("reading 'write'")) return false;
  const stack = err.stack ?? "";
  return stack.includes("nextWrite") && /postgres[\\/](?:cjs[\\/])?src[\\/]connection\.js/.test(stack);
}
