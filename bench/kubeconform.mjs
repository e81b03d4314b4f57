// `kubeconform -strict` beside `rigging check` in `npm run bench`: the same
// fleet output, measured the same way, in the same run. kubeconform reads
// JSON schemas made from the test API server's own OpenAPI v2
// (scripts/kubeconform-schemas.ts), so it runs offline and on the Kubernetes
// version `check` defaults to.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { binaryOf, TOOLS, TOOLS_CACHE, versionOf } from "../scripts/test-tools.mjs";

const tool = (name) => TOOLS.find((t) => t.name === name);

/** The API server's version, which names the schemas made from it. */
export const KUBE_VERSION = versionOf(tool("kube-apiserver"));
/** Where scripts/kubeconform-schemas.ts writes the schemas, beside the test tools. */
export const SCHEMAS = join(TOOLS_CACHE, `kubeconform-schemas@${KUBE_VERSION}`);
// The file names openapi2jsonschema --kubernetes --expanded writes: deployment-apps-v1.json, pod-v1.json.
const LOCATION = join(SCHEMAS, "{{ .ResourceKind }}{{ .KindSuffix }}.json");

/** kubeconform's binary once its schemas exist (made here when missing), or undefined with a note saying why not. */
export function prepareKubeconform(notes) {
  const binary = binaryOf(tool("kubeconform"));
  if (!existsSync(binary)) {
    notes.push(`kubeconform is not built (node scripts/test-tools.mjs builds it): the kubeconform rows are skipped`);
    return undefined;
  }
  if (!existsSync(SCHEMAS)) {
    console.error(`bench: making kubeconform's schemas from kube-apiserver ${KUBE_VERSION} (npx tsx scripts/kubeconform-schemas.ts, once)`);
    const r = spawnSync("npx", ["tsx", "scripts/kubeconform-schemas.ts"], { stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0 || !existsSync(SCHEMAS)) {
      notes.push(`scripts/kubeconform-schemas.ts exited ${r.status ?? r.signal}: the kubeconform rows are skipped`);
      return undefined;
    }
  }
  return binary;
}

/**
 * One `kubeconform -strict` over OUT, through the bench's `measured`. The
 * kustomization.yaml files are read and skipped, as `check` reads them and
 * builds none; objects are the resources kubeconform validated. What it
 * refuses goes to the notes: a schema that differs from check's shows there.
 */
export function kubeconform(binary, output, measured, notes) {
  const argv = [binary, "-strict", "-summary", "-n", "2", "-skip", "Kustomization", "-schema-location", LOCATION, output];
  const r = measured(argv, [0, 1], true);
  const summary = /Summary: (\d+) resources? found in (\d+) files? - Valid: (\d+), Invalid: (\d+), Errors: (\d+),? Skipped: (\d+)/.exec(r.stdout);
  if (!summary) {
    notes.push(`kubeconform ${output} printed no summary (exit ${r.status}): ${(r.stdout + r.stderr).slice(0, 300)}`);
    return undefined;
  }
  const [valid, invalid, errors, skipped] = summary.slice(3).map(Number);
  const row = { wallMs: round1(r.ms), objects: valid + invalid + errors, files: Number(summary[2]), valid, invalid, errors, skipped, peakRssMiB: r.rssMiB };
  row.perSecond = Math.round(row.objects / (r.ms / 1000));
  if (invalid + errors > 0) {
    const first = r.stdout
      .split("\n")
      .filter((l) => l && !l.startsWith("Summary:"))
      .slice(0, 3);
    notes.push(`kubeconform -strict found ${invalid} invalid and ${errors} errors in ${output}; first: ${first.join(" | ")}`);
  }
  return row;
}

/** The ratios of one fleet: rigging check (and check --schema-only) over kubeconform, in the same run. */
export function kubeconformRatios(row) {
  const k = row.kubeconform;
  if (!k) return {};
  const of = `(fleet ${row.files}, output on ${row.where})`;
  const ratios = {};
  for (const [name, c] of [
    ["rigging check", row.check],
    ["rigging check --schema-only", row.schemaOnly],
  ]) {
    if (!c || c.skipped) continue;
    ratios[`${name} / kubeconform -strict, wall ${of}`] = round2(c.wallMs / k.wallMs);
    ratios[`${name} / kubeconform -strict, objects per second ${of}`] = round2(c.objectsPerSecond / k.perSecond);
    if (c.peakRssMiB && k.peakRssMiB) ratios[`${name} / kubeconform -strict, peak RSS ${of}`] = round2(c.peakRssMiB / k.peakRssMiB);
  }
  return ratios;
}

/** The table's lines: a row for each fleet kubeconform checked, and one for check --schema-only beside it. */
export function kubeconformLines(fleets) {
  const rows = fleets.filter((f) => f.kubeconform);
  if (rows.length === 0) return [];
  const lines = [
    "",
    `rigging check OUT (and rigging check --schema-only OUT, the rows so named) beside kubeconform -strict -n 2 OUT, the same output in the same run (schemas from kube-apiserver ${KUBE_VERSION}'s OpenAPI v2; objects: rigging check's count / kubeconform's, Kustomizations skipped)`,
    "",
    "| output on | files | objects | check wall ms | check objects/s | check peak RSS MiB | kubeconform wall ms | kubeconform objects/s | kubeconform peak RSS MiB | wall ratio | RSS ratio |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : "-");
  for (const f of rows) {
    const k = f.kubeconform;
    for (const [where, check] of [
      [f.where, f.check],
      [`${f.where}, --schema-only`, f.schemaOnly],
    ]) {
      if (check === undefined) continue;
      const c = check.skipped ? {} : check;
      lines.push(
        `| ${where} | ${f.files} | ${c.objects ?? "-"} / ${k.objects} | ${c.wallMs ?? "-"} | ${c.objectsPerSecond ?? "-"} | ${c.peakRssMiB ?? "-"} | ${k.wallMs} | ${k.perSecond} | ${k.peakRssMiB ?? "-"} | ${ratio(c.wallMs, k.wallMs)} | ${ratio(c.peakRssMiB, k.peakRssMiB)} |`,
      );
    }
  }
  return lines;
}

const round1 = (n) => Math.round(n * 10) / 10;
const round2 = (n) => Math.round(n * 100) / 100;
