import { scrape } from "@gateway/testkit";
import { infra } from "./processes.ts";
import { sleep } from "./traffic.ts";

/** `kafka.sh leaders TOPIC`'s lines ("partition leader replicas isr"): the leader of each partition. */
export function leadersOf(printed: string): number[] {
  return printed
    .split("\n")
    .filter((line) => /^\d+ /.test(line))
    .map((line) => Number(line.split(" ")[1]));
}

/** The node that leads the most partitions (the lowest id among equals). */
export function leaderOfMost(leaders: number[]): number {
  const counts = new Map<number, number>();
  for (const leader of leaders) counts.set(leader, (counts.get(leader) ?? 0) + 1);
  return [...counts].sort(([a, n], [b, m]) => m - n || a - b)[0]![0];
}

/**
 * What the failover looks like from outside while it happens, sampled from the moment of the
 * kill until `stop()`: when the cluster listed new leaders for every partition the killed node
 * led (asked of the surviving nodes), and until when the gateways' producers were still failing
 * over (a send failed, or events waited in a spool), each in seconds after the kill.
 */
export function watchFailover(options: {
  topic: string;
  victim: number;
  killedAt: number;
  kafkaEnv: Record<string, string>;
  gateways: string[];
}) {
  const { victim, killedAt } = options;
  const since = () => (Date.now() - killedAt) / 1000;
  let stopped = false;
  let electedS: number | null = null;
  let producersS = 0;
  const elections = (async () => {
    while (!stopped && electedS === null) {
      // the probe's start: the metadata it reads is at least that fresh
      const asked = since();
      const printed = await infra("secure/kafka", "leaders", options.kafkaEnv, [options.topic]).catch(
        () => "",
      );
      const leaders = leadersOf(printed);
      // -1: no leader yet; the killed node still listed: not fenced yet
      if (leaders.length > 0 && leaders.every((l) => l !== victim && l >= 0)) electedS = asked;
      else await sleep(250);
    }
  })();
  const producers = (async () => {
    const failures = new Map<string, number>();
    while (!stopped) {
      for (const gateway of options.gateways) {
        const metrics = await scrape(gateway).catch(() => null);
        if (!metrics) continue;
        const failed = metrics.value("gateway_event_publish_failures_total") ?? 0;
        const spooled = metrics.value("gateway_event_spool_bytes") ?? 0;
        const before = failures.get(gateway);
        if ((before !== undefined && failed > before) || spooled > 0) producersS = since();
        failures.set(gateway, failed);
      }
      await sleep(250);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await Promise.all([elections, producers]);
      return { electedS, producersS };
    },
  };
}
