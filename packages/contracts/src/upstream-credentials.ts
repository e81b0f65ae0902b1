/**
 * The only environment variables a catalog deployment's `credential_env` may name. A catalog
 * entry is data an operator types; were any name allowed, a slip (or a hostile entry) could send
 * the process's own secrets (`GATEWAY_OPERATOR_TOKEN`, `GATEWAY_CURSOR_SECRET`, the database URL)
 * upstream as an API key, where they come back in captures. No setting of ours has this prefix.
 */
export const upstreamCredentialPrefix = "GATEWAY_UPSTREAM_KEY_";

export const upstreamCredentialEnvPattern = /^GATEWAY_UPSTREAM_KEY_[A-Z0-9_]{1,100}$/;

export function isUpstreamCredentialEnv(name: string): boolean {
  return upstreamCredentialEnvPattern.test(name);
}
