// Shared by the secured engines' smoke checks (infra/secure/smoke.sh runs them): the repo's own
// clients, the test CA's files, and the report lines ("ok", "refused", "FAILED").
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const repo = new URL("../../../", import.meta.url);

/** A client library as the workspace that uses it resolves it (kafkajs from packages/bus, ...). */
export function dependency(workspace, name) {
  return createRequire(new URL(`${workspace}/package.json`, repo))(name);
}

/** A file of the throwaway CA's folder (infra/secure/ca.sh). */
export const pem = (name) => readFileSync(`${env("SECURE_CA_DIR")}/${name}`);

export const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run through infra/secure/smoke.sh)`);
  return value;
};

let failures = 0;
const reason = (error) => {
  // kafkajs puts the broker's own error codes on the errors it groups (e.g. a refused topic)
  const codes = (error?.errors ?? error?.topicErrors ?? []).map((e) => e.type).filter(Boolean);
  const first = String(error?.message ?? error).split("\n")[0];
  return `${first}${codes.length > 0 ? ` (${[...new Set(codes)].join(", ")})` : ""}`.slice(0, 160);
};

/** Runs `attempt` under a deadline: a refusal that only shows as silence counts as a refusal. */
function within(ms, attempt) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([attempt(), deadline]).finally(() => clearTimeout(timer));
}

export async function expectOk(what, attempt, ms = 30_000) {
  try {
    const detail = await within(ms, attempt);
    console.log(`  ok       ${what}${detail ? `: ${detail}` : ""}`);
    return true;
  } catch (error) {
    failures++;
    console.log(`  FAILED   ${what}: ${reason(error)}`);
    return false;
  }
}

export async function expectRefused(what, attempt, ms = 15_000) {
  try {
    await within(ms, attempt);
    failures++;
    console.log(`  FAILED   ${what}: accepted`);
  } catch (error) {
    console.log(`  refused  ${what}: ${reason(error)}`);
  }
}

export const figure = (line) => console.log(`  figure   ${line}`);

export function finish() {
  if (failures > 0) {
    console.log(`  ${failures} check(s) failed`);
    process.exitCode = 1;
  }
}
