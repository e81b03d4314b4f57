// Each Compass Runner is judged against the Server's runner-clusters entry
// that names its namespace and ServiceAccount, and every Runner on a side is
// judged, not only the first.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";

const COMPASS = "examples/compass.yaml";
const RUNNER = "examples/compass-runner.yaml";
const render = (file: string, text = readFileSync(join(ROOT, file), "utf8")) => renderSource(parseValuesFile(text, file)).objects;
const diff = (...args: string[]) => runInProcess(["diff", ...args]);
const stream = (objects: readonly unknown[]) => tempFile(objects.map((o) => stringify(o)).join("---\n"), "stream.yaml");
const consequences = (out: string) => out.split("\n").filter((l) => l.startsWith("  consequence: "));

type Json = Record<string, any>;
const tokenOf = (ds: Json) =>
  ds.spec.template.spec.volumes.find((v: Json) => v.projected).projected.sources.find((s: Json) => s.serviceAccountToken).serviceAccountToken;
const find = (objects: Json[], kind: string, name: string, namespace?: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace))!;

/** The Compass pair plus a second Runner in namespace runner-b, with its entry in the Server's runner-clusters file. */
function twoRunners(): Json[] {
  const values = readFileSync(join(ROOT, RUNNER), "utf8")
    .replace("namespace: compass-runner\n", "namespace: runner-b\n")
    .replace("name: compass-runner\n", "name: runner-b\n");
  const objects = structuredClone([...render(COMPASS), ...render(RUNNER, values)]) as Json[];
  const clusters = find(objects, "ConfigMap", "compass-server-runner-clusters");
  clusters.data["clusters.yaml"] +=
    "  - name: second\n    issuer: https://kubernetes.default.svc.cluster.local\n    audience: compass-runner\n    namespace: runner-b\n    serviceAccount: compass-runner\n    maxTokenLifetime: 86400s\n";
  return objects;
}

describe("diff: each Runner against the entry that names it", () => {
  it("a token lifetime that another Runner's entry would accept, not its own, is refused", () => {
    const before = structuredClone(render(COMPASS)) as Json[];
    const after = structuredClone(before);
    const clusters = find(after, "ConfigMap", "compass-server-runner-clusters");
    // This Runner's entry allows 1 h; an entry for another namespace allows a day.
    clusters.data["clusters.yaml"] =
      `${clusters.data["clusters.yaml"].replace("maxTokenLifetime: 86400s", "maxTokenLifetime: 3600s")}  - name: other\n    issuer: https://kubernetes.default.svc.cluster.local\n    audience: compass-runner\n    namespace: other-team\n    serviceAccount: other-runner\n    maxTokenLifetime: 86400s\n`;
    tokenOf(find(after, "DaemonSet", "compass-runner")).expirationSeconds = 7200;
    const r = diff(stream(before), stream(after));
    expect(r.code).toBe(1);
    expect(consequences(r.out)).toContain(
      "  consequence: the Runner's token changes (audience compass-runner, 3600 s to audience compass-runner, 7200 s) and no cluster entry of the Server accepts it: enrollment breaks until the Server's cluster entry follows and the Server restarts",
    );
  });

  it("a Runner whose namespace and ServiceAccount no entry names: enrollment breaks", () => {
    const before = structuredClone(render(COMPASS)) as Json[];
    const after = structuredClone(before);
    tokenOf(find(after, "DaemonSet", "compass-runner")).expirationSeconds = 7200;
    find(after, "DaemonSet", "compass-runner").spec.template.spec.serviceAccountName = "renamed";
    const r = diff(stream(before), stream(after));
    expect(consequences(r.out)).toContain(
      "  consequence: the Runner's token changes (audience compass-runner, 3600 s to audience compass-runner, 7200 s), and no cluster entry of the Server names its namespace and ServiceAccount (compass-runner/renamed): enrollment breaks until the Server's cluster entry follows and the Server restarts",
    );
  });
});

describe("diff: every Runner on a side is judged, not only the first", () => {
  it("the second Runner's token beyond its entry", () => {
    const before = twoRunners();
    const after = structuredClone(before);
    tokenOf(find(after, "DaemonSet", "runner-b", "runner-b")).expirationSeconds = 172800;
    const r = diff(stream(before), stream(after));
    expect(r.out).toContain("~ apps/DaemonSet runner-b/runner-b\n");
    expect(consequences(r.out)).toContain(
      "  consequence: the Runner runner-b/runner-b's token changes (audience compass-runner, 3600 s to audience compass-runner, 172800 s) and no cluster entry of the Server accepts it: enrollment breaks until the Server's cluster entry follows and the Server restarts",
    );
    // Its entry shortened instead: judged for runner-b, whose token it names.
    const shorter = structuredClone(before);
    const clusters = find(shorter, "ConfigMap", "compass-server-runner-clusters");
    clusters.data["clusters.yaml"] = clusters.data["clusters.yaml"].replace(/(namespace: runner-b\n[\s\S]*?maxTokenLifetime: )86400s/, "$11800s");
    expect(consequences(diff(stream(before), stream(shorter)).out)).toContain(
      "  consequence: the Server's cluster entries change and refuse the Runner runner-b/runner-b's token (audience compass-runner, 3600 s): enrollment breaks, once the Server restarts, until the Runner runner-b/runner-b's DaemonSet follows",
    );
  });

  it("the second Runner's Server CA, the Server's certificate unchanged: enrollment fails with a TLS error", () => {
    const before = twoRunners();
    const after = structuredClone(before);
    const pod = find(after, "DaemonSet", "runner-b", "runner-b").spec.template.spec;
    pod.volumes.find((v: Json) => v.configMap?.name === "compass-server-ca").configMap.name = "compass-server-ca-2";
    const r = diff(stream(before), stream(after));
    expect(r.out).toContain("~ apps/DaemonSet runner-b/runner-b\n");
    expect(consequences(r.out)).toContain(
      "  consequence: the Runner's Server CA changes from ConfigMap compass-server-ca key ca.crt to ConfigMap compass-server-ca-2 key ca.crt, and the Server's certificate (Secret compass-server-tls key tls.crt) does not: enrollment fails with a TLS error until the Server's certificate follows, unless the new CA signs it already",
    );
  });
});
