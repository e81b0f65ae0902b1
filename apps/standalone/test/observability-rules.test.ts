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

interface Matcher {
  label: string;
  op: string;
  value: string;
}

/**
 * What an expression names: the metrics it selects, each with its label matchers, and the labels
 * it groups or matches on (`by`, `without`, `on`, `ignoring`); and how many parse errors it has.
 */
function selectors(expr: string): {
  errors: number;
  used: { metric: string; matchers: Matcher[] }[];
  grouping: string[];
} {
  const text = (node: { from: number; to: number } | null) => (node ? expr.slice(node.from, node.to) : "");
  let errors = 0;
  const used: { metric: string; matchers: Matcher[] }[] = [];
  const grouping: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors++;
      if (node.name === "GroupingLabels")
        grouping.push(...node.node.getChildren("LabelName").map((n) => text(n)));
      if (node.name !== "VectorSelector") return;
      const matchers = (node.node.getChild("LabelMatchers")?.getChildren("UnquotedLabelMatcher") ?? []).map(
        (m) => ({
          label: text(m.getChild("LabelName")),
          op: text(m.getChild("MatchOp")),
          value: JSON.parse(text(m.getChild("StringLiteral"))) as string,
        }),
      );
      used.push({ metric: text(node.node.getChild("Identifier")), matchers });
    },
  });
  return { errors, used, grouping };
}

/** Names Prometheus itself adds: the scrape's own series and every target's labels (and `le`'s buckets). */
const prometheusOwn = { metrics: new Set(["up"]), labels: new Set(["job", "instance", "le"]) };

/** Label values no single scrape of a healthy process shows all of. */
const possibleValues: Record<string, string[]> = {
  status_class: ["none", "1xx", "2xx", "3xx", "4xx", "5xx"],
};

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
    // a call and a stream, so the labelled series exist to be checked
    expect(await h.chat(h.apiKey)).toBe(200);
    const stream = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": "sk-up" },
      body: JSON.stringify({ model: "gpt-5.4-mini", stream: true, messages: [] }),
    });
    await stream.text();
    expect(stream.status).toBe(200);
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

  it("names only metrics, labels and label values the apps export", () => {
    const unknown: string[] = [];
    // a labelled family with no series yet (nothing has fallen back) shows no labels to check
    const unseen = new Set<string>();
    for (const { where, expr } of everyQuery()) {
      const { used, grouping } = selectors(asGrafanaSends(expr));
      const labelsOfExpr = new Set(prometheusOwn.labels);
      let unchecked = false;
      for (const { metric, matchers } of used) {
        if (prometheusOwn.metrics.has(metric)) continue;
        const name = family(metrics, metric);
        if (!name) {
          unknown.push(`${where}: metric ${metric}`);
          continue;
        }
        const samples = metrics.samples.filter((s) => family(metrics, s.name) === name);
        if (samples.length === 0) {
          unseen.add(name);
          unchecked = true;
          continue;
        }
        for (const label of new Set(samples.flatMap((s) => Object.keys(s.labels)))) labelsOfExpr.add(label);
        for (const { label, op, value } of matchers) {
          if (prometheusOwn.labels.has(label)) continue;
          const values = new Set([...samples.map((s) => s.labels[label]), ...(possibleValues[label] ?? [])]);
          if (!labelsOfExpr.has(label)) unknown.push(`${where}: label ${label} of ${metric}`);
          // an exact match on a value no series has would never select anything
          else if (op === "=" && !values.has(value))
            unknown.push(`${where}: ${label}="${value}" of ${metric}`);
        }
      }
      if (unchecked) continue;
      for (const label of grouping)
        if (!labelsOfExpr.has(label)) unknown.push(`${where}: grouping label ${label}`);
    }
    expect(unknown).toEqual([]);
    expect([...unseen]).toEqual(["gateway_fallbacks_total"]);
    // the check itself can fail: it sees names, matchers and grouping, and knows what is not exported
    expect(selectors('sum by (g) (rate(x_total{a="b",c=~"d"}[5m]))')).toEqual({
      errors: 0,
      used: [
        {
          metric: "x_total",
          matchers: [
            { label: "a", op: "=", value: "b" },
            { label: "c", op: "=~", value: "d" },
          ],
        },
      ],
      grouping: ["g"],
    });
    expect(family(metrics, "gateway_no_such_metric_total")).toBeUndefined();
  });
});
