// The checklist a Compass Runner render prints (CR-18, CR-06), for the docs:
// the shipped example's, with the values a reader fills in as placeholders.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { nodeChecklist, runnerWarnings } from "../systems/compass-runner/checklist.ts";
import { HOSTNAME_LABEL } from "../systems/compass-runner/interface.ts";
import { compassRunnerSchema, type RunnerFields } from "../systems/compass-runner/values.ts";

/** The example's values with each value the checklist names left as `<key>`. */
function placeholders(): RunnerFields {
  const example = compassRunnerSchema().parse(parse(readFileSync(new URL("../../examples/compass-runner.yaml", import.meta.url), "utf8")));
  return {
    ...example,
    nodeSelector: { key: HOSTNAME_LABEL, value: "<node>" },
    kvmResourceName: "<kvmResourceName>",
    seccompProfilePath: "<seccompProfilePath>",
    hostPaths: { sessionVolumeRoot: "<sessionVolumeRoot>", runtimeRoot: "<runtimeRoot>" },
    admission: { ...example.admission, deployers: ["<deployer>"] },
  };
}

/** The checklist as a text block, without the warnings a render may print before it. */
export function checklistBlock(): string {
  const values = placeholders();
  const warnings = new Set(runnerWarnings(values));
  return ["```text", ...nodeChecklist(values).filter((line) => !warnings.has(line)), "```"].join("\n");
}
