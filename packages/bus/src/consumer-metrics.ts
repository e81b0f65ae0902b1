import { type Metrics, type Sample, scrapedCounter, scrapedGauge } from "@gateway/runtime";
import type { EventBus } from "./event-bus.ts";

/**
 * The consumers' metrics, by consumer group (`capture-writer`, `costing-worker`) and topic, over
 * every subscription on `bus`: registered once per bus (the standalone process shares one).
 */
export function registerConsumerMetrics(metrics: Metrics, bus: EventBus): void {
  const labelNames = ["group", "topic"] as const;
  scrapedCounter(metrics, {
    name: "consumer_events_total",
    help: "Events a consumer group finished with, by result: handled, or dead_lettered (given up after repeated failures).",
    labelNames: [...labelNames, "result"],
    read: () =>
      bus.stats().groups.flatMap((g): Sample[] => [
        [{ group: g.group, topic: g.topic, result: "handled" }, g.handled],
        [{ group: g.group, topic: g.topic, result: "dead_lettered" }, g.deadLettered],
      ]),
  });
  scrapedCounter(metrics, {
    name: "consumer_handler_failures_total",
    help: "Calls of a consumer group's handler that threw; each batch is retried, then split up.",
    labelNames,
    read: () => bus.stats().groups.map((g): Sample => [{ group: g.group, topic: g.topic }, g.failedAttempts]),
  });
  scrapedGauge(metrics, {
    name: "consumer_lag_events",
    help: "Events published and not yet handled, over the partitions this member holds (NaN when the broker does not answer).",
    labelNames,
    read: () =>
      Promise.all(
        bus
          .stats()
          .groups.map(async (g): Promise<Sample> => [{ group: g.group, topic: g.topic }, await g.lag()]),
      ),
  });
}
