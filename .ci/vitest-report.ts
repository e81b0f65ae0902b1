// Reads vitest's JSON report (and its console output) for .ci/run.
//   node --experimental-strip-types .ci/vitest-report.ts summary REPORT
//     one line with the counts, then every file that did not pass and the tests in it that did not
//   node --experimental-strip-types .ci/vitest-report.ts crashed REPORT OUTPUT
//     the files whose test process died, one per line, but only when that is all that went wrong:
//     no test failed, and every unhandled error vitest counted is a worker that exited
import { readFileSync } from "node:fs";

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { status: string; fullName: string }[];
  }[];
}

// A test whose process died is left "pending" (never ran) in the report, and its file "passed".
const settled = new Set(["passed", "failed", "skipped", "todo", "disabled"]);

const [mode, reportPath, outputPath] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportPath!, "utf8")) as Report;
const unfinishedFiles = report.testResults.filter((file) =>
  file.assertionResults.some((t) => !settled.has(t.status)),
);

if (mode === "summary") {
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(`vitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
  for (const file of report.testResults) {
    const failed = file.assertionResults.filter((t) => t.status === "failed");
    const unfinished = file.assertionResults.filter((t) => !settled.has(t.status));
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
  const workerExits = output.match(/Worker exited unexpectedly/g)?.length ?? 0;
  const failedFiles = report.testResults.filter((f) => f.status === "failed").length;
  if (report.numFailedTests === 0 && failedFiles === 0 && unhandled > 0 && unhandled === workerExits) {
    for (const file of unfinishedFiles) console.log(file.name);
  }
} else {
  console.error("usage: vitest-report.ts summary REPORT | crashed REPORT OUTPUT");
  process.exit(2);
}
