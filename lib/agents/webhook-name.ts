/**
 * The default endpoint name: after its agent, or the bus. An endpoint still carrying it follows its
 * binding; a name someone chose is never changed.
 */
export function defaultWebhookName(agentName: string | null): string {
  return agentName === null ? "Company bus webhook" : `${agentName} webhook`;
}
