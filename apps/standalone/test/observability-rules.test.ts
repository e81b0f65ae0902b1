import { readdirSync, readFileSync } from "node:fs";
import { type Scrape, scrape } from "@gateway/testkit";
import { parser } from "@prometheus-io/lezer-promql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "./e2e/processes.ts";
import { type Harness, startHarness } from "./harness.ts";

// The alert rules and the Grafana dashboards in infra/observability are checked against what the
// apps really export: every expression parses as PromQL, and every metric and label it names is
// one a scrape of the running product shows. The standalone process registers every app's metrics
// on its one port, so one scrape holds every name.

const observability = `${repoRoot}infra/observability/`;

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}
const rules = (
  parse(readFileSync(`${observability}alerts.yml`, "utf8")) as { groups: { name: string; rules: Rule[] }[] }
).groups.flatMap((g) => g.rules);

interface Panel {
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
}
const dashboards = readdirSync(`${observability}grafana/dashboards`).map((file) => ({
  file,
  ...(JSON.parse(readFileSync(`${observability}grafana/dashboards/${file}`, "utf8")) as {
    uid: string;
    panels: Panel[];
  }),
}));
const panelQueries = dashboards.flatMap((d) =>
  d.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${d.file}: ${p.title}`, expr: t.expr }))),
);

/** Grafana's own variables, as Grafana substitutes them before Prometheus sees the query. */
const asGrafanaSends = (expr: string) =>
  expr.replaceAll("$__rate_interval", "1m").replaceAll("$__range", "1h");

/** The metrics an expression selects, each with the label names it matches on; or its parse errors. */
function selectors(expr: string): { errors: number; used: { metric: string; labels: string[] }[] } {
  const tree = parser.parse(expr);
  let errors = 0;
  const used: { metric: string; labels: string[] }[] = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) errors++;
      if (node.name !== "VectorSelector") return;
      const metric = node.node.getChild("Identifier");
      const labels = node.node
        .getChild("LabelMatchers")
        ?.getChildren("UnquotedLabelMatcher")
        .map((m) => m.getChild("LabelName"))
        .filter((n) => n !== null)
        .map((n) => expr.slice(n.from, n.to));
      if (metric) used.push({ metric: expr.slice(metric.from, metric.to), labels: labels ?? [] });
    },
  });
  return { errors, used };
}

/** Names Prometheus itself adds: the scrape's own series and every target's labels. */
const prometheusOwn = { metrics: new Set(["up"]), labels: new Set(["job", "instance"]) };

/** The family a series belongs to: a histogram's `_bucket`, `_sum` and `_count` are its own. */
function family(metrics: Scrape, name: string): string | undefined {
  if (metrics.families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, "");
  return metrics.families.has(base) ? base : undefined;
}

describe("alert rules and dashboards (infra/observability)", () => {
  let h: Harness;
  let metrics: Scrape;
  beforeAll(async () => {
    h = await startHarness();
    // one call, so the labelled series exist to be checked
    expect(await h.chat(h.apiKey)).toBe(200);
    metrics = await scrape(h.gateway.url);
  }, 60_000);
  afterAll(() => h?.close());

  const everyQuery = () => [
    ...rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
    ...panelQueries,
  ];

  it("has the rules an on-call needs, each with a severity and words to act on", () => {
    const alerts = rules.map((r) => r.alert);
    for (const needed of [
      "GatewayEventSpoolGrowing",
      "ConsumerLagGrowing",
      "ConsumerDeadLetters",
      "GatewayHighErrorRate",
      "AppReadinessFlapping",
    ])
      expect(alerts).toContain(needed);
    for (const rule of rules) {
      expect(["warning", "critical"]).toContain(rule.labels.severity);
      expect(rule.annotations.summary.length).toBeGreaterThan(10);
      expect(rule.annotations.description.length).toBeGreaterThan(10);
    }
  });

  it("has a dashboard panel for each thing an on-call watches", () => {
    const watched = panelQueries.map((q) => q.expr).join("\n");
    for (const metric of [
      "gateway_requests_total",
      "gateway_request_duration_seconds_bucket",
      "gateway_stream_outcomes_total",
      "gateway_fallbacks_total",
      "gateway_event_spool_bytes",
      "consumer_lag_events",
      "costing_calls_awaiting_price",
    ])
      expect(watched).toContain(metric);
    // every query goes to the data source the compose profile provisions
    const provisioned = parse(
      readFileSync(`${observability}grafana/provisioning/datasources/prometheus.yml`, "utf8"),
    ) as { datasources: { uid: string }[] };
    const used = dashboards.flatMap((d) =>
      d.panels.flatMap((p) => [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)]),
    );
    expect(new Set(used.filter((source) => source !== undefined).map((source) => source.uid))).toEqual(
      new Set(provisioned.datasources.map((source) => source.uid)),
    );
  });

  it("parses every expression as PromQL", () => {
    const broken = everyQuery().filter((q) => selectors(asGrafanaSends(q.expr)).errors > 0);
    expect(broken).toEqual([]);
    // the check itself can fail: a broken expression has errors
    expect(selectors("rate(gateway_requests_total[5m]").errors).toBeGreaterThan(0);
  });

  it("names only metrics and labels the apps export", () => {
    const unknown: string[] = [];
    for (const { where, expr } of everyQuery()) {
      for (const { metric, labels } of selectors(asGrafanaSends(expr)).used) {
        if (prometheusOwn.metrics.has(metric)) continue;
        const name = family(metrics, metric);
        if (!name) {
          unknown.push(`${where}: metric ${metric}`);
          continue;
        }
        const seen = new Set(
          metrics.samples
            .filter((s) => family(metrics, s.name) === name)
            .flatMap((s) => Object.keys(s.labels)),
        );
        for (const label of labels)
          if (!seen.has(label) && !prometheusOwn.labels.has(label) && label !== "le")
            unknown.push(`${where}: label ${label} of ${metric}`);
      }
    }
    expect(unknown).toEqual([]);
    // the check itself can fail: it sees names and label names, and knows what is not exported
    expect(selectors('sum(rate(x_total{a="b",c=~"d"}[5m]))').used).toEqual([
      { metric: "x_total", labels: ["a", "c"] },
    ]);
    expect(family(metrics, "gateway_no_such_metric_total")).toBeUndefined();
  });
});
