// The --runner-clusters file read as compass-server's yaml.v3 decoder reads
// it (KnownFields, aliases, merge keys, its scalar rules, its alias bound).
// Every case is the rendered example's file edited: an equivalent spelling
// keeps the verdict, a broken one is caught in every spelling.
import { readFileSync } from "node:fs";
import type { ConfigMap } from "kubernetes-types/core/v1";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { readRunnerClusters } from "../../../src/systems/compass-contract/runner-clusters.ts";
import { expectLinear } from "../../support/linear.ts";
import { render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";

const rendered = () => structuredClone(render(parse(readFileSync("examples/compass-server.yaml", "utf8")))) as K8sObject[];
const clustersMap = (objects: K8sObject[]) =>
  objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-runner-clusters")) as ConfigMap & K8sObject;
const RENDERED = clustersMap(rendered()).data!["clusters.yaml"];

/** The CS-09 findings after editing the rendered file's text. */
function verdict(edit: (text: string) => string): string[] {
  const objects = rendered();
  const cm = clustersMap(objects);
  cm.data = { ...cm.data, "clusters.yaml": edit(RENDERED) };
  return catalog
    .checkObjects(objects)
    .filter((f) => f.id === "CS-09")
    .map((f) => f.message);
}

const line = (from: string, to: string) => (text: string) => {
  expect(text).toContain(from);
  return text.replace(from, to);
};
const NS = "    namespace: compass-runner\n    serviceAccount: compass-runner\n";
const LIFE = "    maxTokenLifetime: 86400s\n";

describe("equivalent spellings keep the verdict", () => {
  it("the rendered file is clean", () => expect(verdict((t) => t)).toEqual([]));

  it.each([
    ["a merge key from an inline map", line(NS, "    <<: {namespace: compass-runner, serviceAccount: compass-runner}\n")],
    [
      "a merge key from a list of maps, the first winning",
      line(NS, "    <<: [{namespace: compass-runner}, {serviceAccount: compass-runner, namespace: other}]\n"),
    ],
    ["an anchored scalar and its alias", line(NS, "    namespace: &ns compass-runner\n    serviceAccount: *ns\n")],
    ["an own key over a merged one", line(LIFE, `${LIFE}    <<: {maxTokenLifetime: 60s}\n`)],
    ["a merge with its explicit tag", line(NS, "    !!merge <<: {namespace: compass-runner, serviceAccount: compass-runner}\n")],
    ["flow style", (t: string) => stringify(parse(t), { collectionStyle: "flow" })],
    ["every string double-quoted", (t: string) => stringify(parse(t), { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN" })],
    ["a !!str lifetime", line(LIFE, "    maxTokenLifetime: !!str 86400s\n")],
    ["the same lifetime in hours", line(LIFE, "    maxTokenLifetime: 24h\n")],
    ["document markers", (t: string) => `---\n${t}...\n`],
    ["a null audience, which takes the default", line("    audience: compass-runner\n", "    audience: ~\n")],
    ["a numeric-looking name, a string to the Server", line("name: local", "name: 0755")],
  ])("%s", (_, edit) => expect(verdict(edit)).toEqual([]));

  it("a second entry merging the first by alias, with its own name and issuer", () => {
    const text = readRunnerClusters(
      `${line("  - name: local\n", "  - &base\n    name: local\n")(RENDERED)}  - <<: *base\n    name: edge\n    issuer: https://edge.example.com\n`,
    );
    expect(text.problems).toEqual([]);
    expect(text.clusters[1]).toEqual({ ...text.clusters[0], name: "edge", issuer: "https://edge.example.com" });
  });
});

describe("a broken file is caught in every spelling", () => {
  it.each([
    ["as a key", line(LIFE, `${LIFE}    audiences: [x]\n`)],
    ["in a merged map", line(LIFE, `${LIFE}    <<: {audiences: [x]}\n`)],
    ["in a merged list of maps", line(LIFE, `${LIFE}    <<: [{name: local}, {audiences: [x]}]\n`)],
  ])("an unknown key %s", (_, edit) =>
    expect(verdict(edit).join("\n")).toMatch(/entry 1 has the unknown key "audiences" \(line \d+\); the Server refuses unknown keys/));

  it.each([
    ["plain", line(LIFE, "    maxTokenLifetime: 86400\n")],
    ["in hex", line(LIFE, "    maxTokenLifetime: 0x15180\n")],
    ["with underscores", line(LIFE, "    maxTokenLifetime: 86_400\n")],
    ["as a float", line(LIFE, "    maxTokenLifetime: 8.64e4\n")],
    ["through a merge", line(LIFE, "    <<: {maxTokenLifetime: 86400}\n")],
    ["through an alias", (t: string) => line(LIFE, "    maxTokenLifetime: *n\n")(t.replace("name: local", "name: &n 86400"))],
  ])("a bare-number lifetime, %s", (_, edit) =>
    expect(verdict(edit).join("\n")).toMatch(/has maxTokenLifetime .*a bare number: the Server's decoder \(yaml\.v3\) refuses it/));

  it.each([
    ["60s", line(LIFE, "    maxTokenLifetime: 60s\n")],
    ["in minutes", line(LIFE, "    maxTokenLifetime: 1m\n")],
    ["in hours", line(LIFE, "    maxTokenLifetime: 0.01h\n")],
    ["quoted", line(LIFE, "    maxTokenLifetime: '60s'\n")],
    ["through a merge", line(LIFE, "    <<: {maxTokenLifetime: 60s}\n")],
  ])("a lifetime below 600 s, %s", (_, edit) => expect(verdict(edit).join("\n")).toMatch(/is below the 600s minimum/));

  it.each([
    ["~", "~"],
    ["null", "null"],
    ["empty", ""],
    ["!!null", "!!null null"],
  ])("a null namespace: %s", (_, value) =>
    expect(verdict(line("    namespace: compass-runner\n", `    namespace: ${value}\n`))).toEqual([
      'the runner clusters file entry 1 ("local"): namespace and serviceAccount are required',
    ]));

  it("a key given twice", () =>
    expect(verdict(line(LIFE, `${LIFE}    name: local\n`))).toEqual([
      'the runner clusters file entry 1 is refused by the Server\'s decoder (line 9): mapping key "name" already defined at line 3',
    ]));
});

describe("bad input: a clear finding, no crash, linear time", () => {
  const refused = (text: string) => readRunnerClusters(text).problems.map((p) => p.message);
  /** Level k merges level k-1 ten times: 10^k decodes if nothing bounds them. */
  const laughs = (levels: number) =>
    `clusters:\n  - &l0 {name: a}\n${Array.from({ length: levels }, (_, k) => `  - &l${k + 1} {<<: [${Array(10).fill(`*l${k}`).join(", ")}]}\n`).join("")}`;

  it("a billion laughs is refused before it expands", () => {
    const start = performance.now();
    expect(refused(laughs(9))).toEqual(["is refused by the Server's decoder: document contains excessive aliasing"]);
    expect(performance.now() - start).toBeLessThan(5000);
  });

  it("an alias inside its own anchor", () =>
    expect(refused("clusters:\n  - &a {name: x, <<: *a}\n")).toEqual(["is refused by the Server's decoder: anchor 'a' value contains itself"]));

  it("an alias to no anchor", () =>
    expect(refused("clusters:\n  - *nope\n")).toEqual(["is refused by the Server's decoder: line 2: unknown anchor 'nope' referenced"]));

  it("a merge of a scalar", () =>
    expect(refused(line(LIFE, `${LIFE}    <<: 5\n`)(RENDERED))).toEqual([
      "is refused by the Server's decoder: map merge requires map or sequence of maps as the value",
    ]));

  it("a chain of merges, each entry merging the one before", () => {
    const chain = `clusters:\n  - &l0 {name: a}\n${Array.from({ length: 3000 }, (_, k) => `  - &l${k + 1} {<<: *l${k}}\n`).join("")}`;
    expect(refused(chain)).toEqual(["is refused by the Server's decoder: document contains excessive aliasing"]);
  });

  it("deep nesting is a finding, not a crash", () => {
    const problems = refused(`clusters: ${"[".repeat(3000)}${"]".repeat(3000)}\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^is not YAML|^is refused by the Server's decoder/);
  });

  it("many entries merging one anchor, in linear time", () => {
    const file = (n: number) =>
      `clusters:\n  - &base {name: c0, issuer: https://c0.example.com, namespace: n, serviceAccount: s}\n${Array.from(
        { length: n },
        (_, i) => `  - {<<: *base, name: c${i + 1}, issuer: "https://c${i + 1}.example.com"}\n`,
      ).join("")}`;
    expectLinear([1000, 2000, 4000, 8000], (n) => {
      const text = file(n);
      return () => expect(readRunnerClusters(text).problems).toEqual([]);
    });
  });
});
