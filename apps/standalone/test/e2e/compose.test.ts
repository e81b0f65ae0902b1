import { existsSync } from "node:fs";
import { join } from "node:path";
import { readStartScript } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { parseCaptureWriterEnv } from "../../../capture-writer/src/env.ts";
import { parseControlPlaneEnv } from "../../../control-plane/src/env.ts";
import { parseCostingWorkerEnv } from "../../../costing-worker/src/env.ts";
import { parseGatewayEnv } from "../../../gateway/src/env.ts";
import { parseEnv as parseStandaloneEnv } from "../../src/env.ts";
import {
  compose,
  containerEnv,
  dockerfileTargets,
  imageCommand,
  imageEnv,
  mounts,
  readRepoFile,
  service,
} from "./compose-files.ts";
import { repoRoot } from "./processes.ts";

// No Docker engine where the tests run, so docker-compose.yml is kept honest here: every app runs
// from its own image with an environment it accepts (the image's, infra/distributed.env, the
// engines' addresses), every other image is pinned, and state that must outlive a container is on
// a volume. The balancer and the observability profile have their own files (compose-*.test.ts).

const splitApps = {
  gateway: parseGatewayEnv,
  "control-plane": parseControlPlaneEnv,
  "capture-writer": parseCaptureWriterEnv,
  "costing-worker": parseCostingWorkerEnv,
};

/**
 * An exact release: `v1.2.3`, `1.2.3` (a variant suffix allowed: `-alpine`), MinIO's
 * `RELEASE.<timestamp>`; PostgreSQL's releases have two numbers (`16.9`, the second is the patch).
 */
function pinned(image: string): boolean {
  const [name, tag = ""] = image.split(/:(?=[^:]*$)/);
  if (name === "postgres") return /^\d+\.\d+(-[a-z0-9]+)?$/.test(tag);
  return /^(v?\d+\.\d+\.\d+(-[a-z0-9.-]+)?|RELEASE\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ)$/.test(tag);
}

describe("docker-compose.yml", () => {
  it.each(Object.entries(splitApps))(
    "runs %s from its image with the shared settings, in an environment it accepts",
    (name, parse) => {
      const s = service(name);
      expect(s.profiles).toEqual(["split"]);
      expect(s.build).toEqual({ context: ".", target: name });
      expect(s.command, "the image's own CMD starts the app").toBeUndefined();
      expect(s.env_file).toBe("infra/distributed.env");
      expect(() => parse(containerEnv(name))).not.toThrow();
    },
  );

  it("runs the one-process server from its image on :8080, its data on a named volume", () => {
    const s = service("standalone");
    expect(s.profiles).toEqual(["standalone"]);
    expect(s.build).toEqual({ context: ".", target: "standalone" });
    expect(s.ports).toEqual(["8080:8080"]);
    const env = containerEnv("standalone");
    expect(env.PORT).toBe("8080");
    expect(mounts(s)).toContainEqual({ kind: "named", source: "gateway-data", target: env.GATEWAY_DATA_DIR });
    expect(() => parseStandaloneEnv(env)).not.toThrow();
  });

  it("builds each app from a Dockerfile target and pins every other image to an exact release", () => {
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.build) {
        expect(dockerfileTargets.has(s.build.target), `${name}: target ${s.build.target}`).toBe(true);
        expect(s.image, `${name}: built, so not also pulled`).toBeUndefined();
      } else {
        expect(pinned(s.image ?? ""), `${name}: ${s.image}`).toBe(true);
      }
    }
    const node = /^ARG NODE_IMAGE=(\S+)$/m.exec(readRepoFile("Dockerfile"))?.[1];
    expect(pinned(node ?? ""), `the Dockerfile's Node: ${node}`).toBe(true);
  });

  const startScript = (path: string) => readStartScript(join(repoRoot, path));

  // The flags and the environment are measured choices (the young generation's size, pretenuring,
  // glibc's trim threshold: docs/decisions.md); an image that drifted from the start script would
  // run what the bench did not measure.
  it.each([...Object.keys(splitApps), "standalone"])(
    "starts %s in its image with its start script's node flags and environment",
    (app) => {
      const { env, command } = startScript(`apps/${app}/package.json`);
      const [node, ...args] = command;
      // (Node 24 strips types without being asked; the flag stays in the scripts for Node 22)
      const flags = args.slice(0, -1).filter((a) => a !== "--experimental-strip-types");
      expect(imageCommand(app)).toEqual([node, ...flags, args.at(-1)]);
      // Node's compile cache, where each runs it: the checkout's node_modules, the image's volume
      // (its /app is read-only to the app)
      const { NODE_COMPILE_CACHE: cache, ...rest } = env;
      expect(imageEnv(app)).toMatchObject(rest);
      if (cache) expect(imageEnv(app).NODE_COMPILE_CACHE).toMatch(/^\/data\//);
    },
  );

  it("starts the one-command server (`pnpm start` at the root) as the standalone app's own script does", () => {
    const root = startScript("package.json");
    const app = startScript("apps/standalone/package.json");
    expect(root.env).toEqual(app.env);
    expect(root.command.slice(0, -1)).toEqual(app.command.slice(0, -1));
    expect(root.command.at(-1)).toBe(`apps/standalone/${app.command.at(-1)}`);
  });

  it("lets the gateway scale: no host port, and a spool of its own in each replica of each spooling app", () => {
    expect(service("gateway").ports).toBeUndefined();
    for (const name of ["gateway", "capture-writer", "costing-worker"]) {
      const spool = containerEnv(name).GATEWAY_SPOOL_DIR ?? "";
      expect(spool, name).toMatch(/^\//);
      // the deepest mount holding the spool: anonymous, so each container has its own, and
      // compose hands it to the container that replaces this one
      const holder = mounts(service(name))
        .filter((m) => spool === m.target || spool.startsWith(`${m.target}/`))
        .sort((a, b) => b.target.length - a.target.length)[0];
      expect(holder?.kind, `${name}: the volume holding ${spool}`).toBe("anonymous");
    }
  });

  it("keeps Redis's jobs across restarts: an append-only file on a named volume", () => {
    const redis = service("redis");
    const command = (redis.command as string[]).join(" ");
    expect(command).toContain("--appendonly yes");
    expect(command).toMatch(/--appendfsync (everysec|always)/);
    expect(mounts(redis)).toContainEqual({ kind: "named", source: "redis-data", target: "/data" });
  });

  it("mounts only files and folders the repo has (Docker would make a missing one an empty folder)", () => {
    const missing = Object.values(compose.services)
      .flatMap(mounts)
      .filter((m) => m.kind === "bind" && !existsSync(`${repoRoot}${m.source}`))
      .map((m) => m.source);
    expect(missing).toEqual([]);
  });

  it("restarts every long-running service after a crash, and not the one-shot bucket setup", () => {
    for (const [name, s] of Object.entries(compose.services)) {
      expect(s.restart, name).toBe(name === "minio-bucket" ? undefined : "unless-stopped");
    }
  });
});
