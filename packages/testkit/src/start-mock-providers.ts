import { startMockProviderA } from "./provider-a/provider-a.ts";
import { startMockProviderB } from "./provider-b/provider-b.ts";
import type { MockProvider } from "./types.ts";

export interface MockProviders {
  providerA: MockProvider;
  providerB: MockProvider;
  close(): Promise<void>;
}

/** Both mocks on free ports. If one fails to start, the other is closed again. */
export async function startMockProviders(): Promise<MockProviders> {
  const [a, b] = await Promise.allSettled([startMockProviderA(), startMockProviderB()]);
  if (a.status === "rejected" || b.status === "rejected") {
    await Promise.all(
      [a, b].map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)),
    );
    throw a.status === "rejected" ? a.reason : (b as PromiseRejectedResult).reason;
  }
  const providerA = a.value;
  const providerB = b.value;
  return {
    providerA,
    providerB,
    close: async () => {
      await Promise.all([providerA.close(), providerB.close()]);
    },
  };
}
