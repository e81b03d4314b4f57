// The differential harness's agreement with the API server, beside the speed
// table of `npm run bench`: scripts/differential.ts on a fresh test control
// plane; skipped, with a note, where the test tools are not built.
import { spawnSync } from "node:child_process";

/** The harness's summary (trials, agreement, per class), or undefined with a note. */
export function differential(notes) {
  const r = spawnSync("npx", ["tsx", "scripts/differential.ts"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    notes.push(`scripts/differential.ts exited ${r.status ?? r.signal} (node scripts/test-tools.mjs builds the API server): no agreement rows`);
    return undefined;
  }
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

/** The table's lines: each class's trials and agreement, the classes rigging does not judge apart. */
export function differentialLines(summary) {
  if (!summary) return [];
  const rate = (agree, trials) => `${((100 * agree) / trials).toFixed(1)}%`;
  const lines = [
    "",
    `Agreement with kube-apiserver ${summary.kubeVersion}'s strict dry run (rigging check --schema-only; test/cluster/differential.test.ts): ${summary.agree} of ${summary.trials} trials, ${rate(summary.agree, summary.trials)}`,
    "",
    "| mutation class | trials | the API server refuses | agree |",
    "| --- | ---: | ---: | ---: |",
  ];
  const classes = Object.entries(summary.classes);
  for (const [name, c] of classes.filter(([, c]) => !c.notJudged)) lines.push(`| ${name} | ${c.trials} | ${c.serverRefuses} | ${rate(c.agree, c.trials)} |`);
  for (const [name, c] of classes.filter(([, c]) => c.notJudged)) lines.push(`| ${name}: not judged (${c.notJudged}) | ${c.trials} | ${c.serverRefuses} | - |`);
  return lines;
}
