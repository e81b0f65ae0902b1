import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { containerEnv, durationMs, mounts, readRepoFile, service } from "./compose-files.ts";
import { repoRoot } from "./processes.ts";

// The split deployment's balancer in docker-compose.yml (`lb`, HAProxy): it must find every
// gateway replica, take one out of rotation before it stops listening, and never send a call to
// the provider twice. Its config is also checked by HAProxy itself where the binary is installed.

const path = "infra/compose/haproxy.cfg";
const config = readRepoFile(path);
const lb = service("lb");

/** Debian's haproxy, as `infra/haproxy.sh install` puts it (CI does); null when not installed. */
const haproxy = (() => {
  const found = spawnSync(`${repoRoot}infra/haproxy.sh`, ["path"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : null;
})();

describe("docker-compose.yml: the gateways' load balancer", () => {
  it("publishes the gateways' port and reads the repo's config", () => {
    expect(lb.ports).toEqual(["8080:8080"]);
    expect(config).toMatch(/^\s*bind :8080$/m);
    expect(mounts(lb)).toContainEqual({
      kind: "bind",
      source: `./${path}`,
      target: "/usr/local/etc/haproxy/haproxy.cfg",
    });
  });

  it("finds every gateway replica through Docker's DNS and checks /readyz", () => {
    expect(config).toMatch(/^\s*nameserver \S+ 127\.0\.0\.11:53$/m);
    const port = containerEnv("gateway").PORT;
    expect(config).toMatch(new RegExp(`^\\s*server-template \\S+ \\d+ gateway:${port}$`, "m"));
    expect(config).toMatch(/^\s*default-server .*\bresolvers docker\b.*\binit-addr none\b/m);
    expect(config).toMatch(/^\s*option httpchk GET \/readyz$/m);
    expect(config).toMatch(/^\s*http-check expect status 200$/m);
  });

  it("sends a call again only if it never reached a gateway, or is a GET", () => {
    expect(config).toMatch(/^\s*http-request disable-l7-retry if !METH_GET$/m);
  });

  it("keeps a stopping gateway serving until the checks took it out, and lets its drain finish", () => {
    const checks = /^\s*default-server check inter (\d+)s fall (\d+)\b/m.exec(config);
    expect(checks, "default-server check inter <n>s fall <n>").not.toBeNull();
    const noticeMs = Number(checks![1]) * 1000 * Number(checks![2]);
    const env = containerEnv("gateway");
    const delayMs = Number(env.GATEWAY_DRAIN_DELAY_MS);
    expect(delayMs).toBeGreaterThan(noticeMs);
    const drainMs = delayMs + Number(env.GATEWAY_DRAIN_TIMEOUT_MS ?? 30_000);
    expect(durationMs(service("gateway").stop_grace_period)).toBeGreaterThan(drainMs);
  });

  it.skipIf(!haproxy)(
    `is a configuration HAProxy accepts, without warnings${haproxy ? "" : " (skipped: haproxy is not installed; infra/haproxy.sh install)"}`,
    () => {
      const check = spawnSync(haproxy!, ["-c", "-f", `${repoRoot}${path}`], { encoding: "utf8" });
      const output = check.stdout + check.stderr;
      expect(check.status, output).toBe(0);
      expect(output).not.toMatch(/WARNING|ALERT/);
    },
  );
});
