import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { containerEnv, mounts, readRepoFile, service } from "./compose-files.ts";

// docker-compose.yml's `observability` profile: Prometheus scrapes every app where compose has it
// listen and loads the repo's alert rules; Grafana reads that Prometheus and the repo's dashboards.

interface ScrapeJob {
  job_name: string;
  dns_sd_configs?: { names: string[]; type: string; port: number }[];
}

const prometheusConfig = parse(readRepoFile("infra/observability/prometheus.yml")) as {
  rule_files: string[];
  scrape_configs: ScrapeJob[];
};
const datasources = parse(
  readRepoFile("infra/observability/grafana/provisioning/datasources/prometheus.yml"),
) as {
  datasources: { type: string; url: string; isDefault?: boolean }[];
};
const dashboards = parse(
  readRepoFile("infra/observability/grafana/provisioning/dashboards/dashboards.yml"),
) as {
  providers: { type: string; options: { path: string } }[];
};

/** Where `source` (a path in the repo) is mounted in a service's container. */
const mountedAt = (name: string, source: string) =>
  mounts(service(name)).find((m) => m.kind === "bind" && m.source === `./${source}`)?.target;

describe("docker-compose.yml: the observability profile", () => {
  it("runs Prometheus and Grafana only in that profile", () => {
    expect(service("prometheus").profiles).toEqual(["observability"]);
    expect(service("grafana").profiles).toEqual(["observability"]);
  });

  it.each(["gateway", "control-plane", "capture-writer", "costing-worker", "standalone"])(
    "scrapes every replica of %s on the port it listens on",
    (app) => {
      const jobs = prometheusConfig.scrape_configs.filter((j) =>
        j.dns_sd_configs?.some((d) => d.names.includes(app)),
      );
      expect(jobs.map((j) => j.job_name)).toEqual([app]);
      expect(jobs[0]!.dns_sd_configs).toEqual([
        { names: [app], type: "A", port: Number(containerEnv(app).PORT) },
      ]);
    },
  );

  it("loads the repo's alert rules", () => {
    expect(prometheusConfig.rule_files).toEqual([mountedAt("prometheus", "infra/observability/alerts.yml")]);
    expect(mountedAt("prometheus", "infra/observability/prometheus.yml")).toBe(
      "/etc/prometheus/prometheus.yml",
    );
  });

  it("gives Grafana that Prometheus and the repo's dashboards", () => {
    expect(service("prometheus").ports).toEqual(["9090:9090"]);
    expect(datasources.datasources).toMatchObject([
      { type: "prometheus", url: "http://prometheus:9090", isDefault: true },
    ]);
    const provisioning = "infra/observability/grafana/provisioning";
    expect(mountedAt("grafana", `${provisioning}/datasources`)).toBe("/etc/grafana/provisioning/datasources");
    expect(mountedAt("grafana", `${provisioning}/dashboards`)).toBe("/etc/grafana/provisioning/dashboards");
    expect(dashboards.providers).toMatchObject([
      { type: "file", options: { path: mountedAt("grafana", "infra/observability/grafana/dashboards") } },
    ]);
  });
});
