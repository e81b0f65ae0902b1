// Reads vitest's JSON report (and its console output) for .ci/run.
//   node --experimental-strip-types .ci/vitest-report.ts summary REPORT
//     one line with the counts, then every file that did not pass and its tests that did not
//   node --experimental-strip-types .ci/vitest-report.ts crashed REPORT OUTPUT
//     the files whose test process died, one per line, only when that is all that went wrong and
//     each dead process is accounted for (docs/decisions.md, "Crashes of Node itself")
import { readFileSync } from "node:fs";

interface Report {
  numFailedTests: number;
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { status: string; fullName: string }[];
  }[];
}

// A file whose process died stays "passed" in the report, with the tests it had not reported yet
// left "pending" (vitest also warns that "some tests are still running"): those never finished.
const settled = new Set(["passed", "failed", "skipped", "todo"]);
const isUnfinished = (t: { status: string }) => !settled.has(t.status);

const [mode, reportPath, outputPath] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportPath!, "utf8")) as Report;
const tests = report.testResults.flatMap((file) => file.assertionResults);
const unfinishedFiles = report.testResults.filter((file) => file.assertionResults.some(isUnfinished));

if (mode === "summary") {
  const count = (...statuses: string[]) => tests.filter((t) => statuses.includes(t.status)).length;
  const unfinished = tests.filter(isUnfinished).length;
  console.log(
    `vitest: ${count("passed")} passed, ${count("failed")} failed, ${count("skipped", "todo")} skipped` +
      (unfinished > 0 ? `, ${unfinished} never finished` : ""),
  );
  for (const file of report.testResults) {
    const failed = file.assertionResults.filter((t) => t.status === "failed");
    const unfinished = file.assertionResults.filter(isUnfinished);
    if (file.status === "passed" && failed.length === 0 && unfinished.length === 0) continue;
    const why = file.message ? `: ${file.message.split("\n")[0]}` : "";
    console.log(`not passed: ${file.name} (${unfinished.length > 0 ? "did not finish" : file.status})${why}`);
    for (const t of failed) console.log(`  failed: ${t.fullName}`);
    for (const t of unfinished) console.log(`  never finished: ${t.fullName}`);
  }
} else if (mode === "crashed") {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the colour codes of the console output
  const output = readFileSync(outputPath!, "utf8").replace(/\x1b\[[0-9;]*m/g, "");
  const unhandled = Number(/Vitest caught (\d+) unhandled error/.exec(output)?.[1] ?? 0);
  const workerExits = output.match(/Caused by: Error: Worker exited unexpectedly/g)?.length ?? 0;
  const refuse = (why: string) => console.error(`no re-run: ${why}`);
  if (report.numFailedTests > 0 || report.testResults.some((f) => f.status === "failed")) {
    refuse("a test or a file failed");
  } else if (workerExits === 0 || unhandled !== workerExits) {
    refuse(`${unhandled} unhandled error(s), of which ${workerExits} a test process that died`);
  } else if (/FATAL ERROR|heap out of memory|Reached heap limit/.test(output)) {
    // out of memory is a leak to find, not a crash to ride out
    refuse("a test process ran out of memory");
  } else if (unfinishedFiles.length !== workerExits) {
    // a process that died after its last test (in afterAll, say) leaves no file to name
    refuse(`${workerExits} test process(es) died but ${unfinishedFiles.length} file(s) did not finish`);
  } else {
    for (const file of unfinishedFiles) console.log(file.name);
  }
} else {
  console.error("usage: vitest-report.ts summary REPORT | crashed REPORT OUTPUT");
  process.exit(2);
}
