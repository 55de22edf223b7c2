/**
 * The name an endpoint gets when none is given: after the agent it is bound to, or the bus. An
 * endpoint still carrying it follows its binding (the agent renamed, the endpoint rebound); a
 * name someone chose is never changed.
 */
export function defaultWebhookName(agentName: string | null): string {
  return agentName === null ? "Company bus webhook" : `${agentName} webhook`;
}
