// Quantities as the API server stores them: src/k8s/quantity.ts's canonical()
// must give the text a real kube-apiserver writes back for each spelling, and
// parseQuantity must refuse exactly the spellings the server refuses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonical, compareQuantity, parseQuantity } from "../../src/k8s/quantity.ts";
import { startControlPlane, type ControlPlane } from "./support/control-plane.ts";

/** An unexpanded shell variable, as a template left unrendered leaves it. */
const SHELL_VAR = ["$", "{VAR}"].join("");

let cp: ControlPlane;
const NS = "quantities";

beforeAll(async () => {
  cp = await startControlPlane();
  await cp.api("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  // No controller manager runs: the ServiceAccount admission plugin needs the default account to exist.
  await cp.api("POST", `/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } });
});
afterAll(async () => {
  await cp?.stop();
});

/** Spellings the server accepts, with what we expect it to store (the test checks the server agrees). */
const ACCEPTED: [input: string | number, stored: string][] = [
  ["1000m", "1"],
  ["2048Mi", "2Gi"],
  ["0.5", "500m"],
  ["1e3", "1e3"], // DecimalExponent keeps its form, and canonical-looking text is kept as written
  ["1E3", "1E3"],
  ["10e2", "1e3"],
  ["100e-2", "1"],
  ["1e+3", "1e+3"],
  ["1.5", "1500m"],
  ["1.5Gi", "1536Mi"],
  ["1536Mi", "1536Mi"],
  ["0.5Gi", "512Mi"],
  ["0.5Ki", "512"],
  ["0.1Ki", "102400m"],
  ["1.1Ki", "1126400m"],
  ["1024Ki", "1Mi"],
  ["01Ki", "01Ki"],
  ["+1Ki", "+1Ki"],
  ["1.Ki", "1.Ki"],
  ["+5", "+5"],
  ["1.500k", "1.500k"],
  ["1000000k", "1G"],
  ["0.1m", "100u"],
  ["0.5n", "1n"],
  ["1e-1000000", "1e-9"],
  ["12345678901234567890", "12345678901234567890"],
  ["1000E", "1"], // past E, Go finds no suffix and drops the exponent
  ["10000E", "10"],
  ["1234E", "1234E"],
  ["1.5E", "1500P"],
  ["100Mi", "100Mi"],
  ["1.5e-9", "2e-9"],
  ["0.000000001", "1n"],
  ["1e4294967296", "1e4294967296"], // the exponent is truncated to int32: 1e0
  ["5e4294967295", "500e-3"],
  ["1Ei", "1Ei"],
  ["8Ei", "9223372036854775807"],
  ["000", "0"],
  ["0.0", "0"],
  ["-0", "0"],
  ["+", "0"],
  [".", "0"],
  ["Ki", "0"],
  ["e3", "0"],
  ["1.0", "1"],
  [" 2Gi ", "2Gi"],
  ["\u00a0100m", "100m"],
  [2, "2"],
  [0.5, "500m"],
  [1e21, "1e+21"],
  [1.5e-7, "150e-9"],
];

/** Spellings the server refuses. */
const REFUSED: string[] = ["512MB", SHELL_VAR, "1Kib", "1ki", "1e", "1.2.3", "1 Gi", "\t1", "0x10", "1_000", "", "1e99999999999999999999", ".e-10", "1e3.5"];

function pod(name: string, sizes: readonly (string | number)[], resources: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NS },
    spec: {
      containers: [{ name: "c", image: "registry.example/app:1", resources }],
      volumes: sizes.map((sizeLimit, i) => ({ name: `v${i}`, emptyDir: { sizeLimit } })),
    },
  };
}

describe("quantities as the API server stores them", () => {
  it("canonical() is the text the server stores for each accepted spelling", async () => {
    const reply = await cp.api(
      "POST",
      `/api/v1/namespaces/${NS}/pods?dryRun=All&fieldValidation=Strict`,
      pod(
        "sizes",
        ACCEPTED.map(([q]) => q),
      ),
    );
    expect(reply.status, reply.text.slice(0, 600)).toBe(201);
    const volumes = (reply.json() as { spec: { volumes: { name: string; emptyDir?: { sizeLimit?: string } }[] } }).spec.volumes;
    const stored = ACCEPTED.map((_, i) => volumes.find((v) => v.name === `v${i}`)?.emptyDir?.sizeLimit);
    const ours = ACCEPTED.map(([q]) => {
      const parsed = parseQuantity(q);
      return parsed === undefined ? "(refused)" : canonical(parsed);
    });
    expect(ours).toEqual(stored);
    expect(ACCEPTED.map(([, s]) => s)).toEqual(stored);
  });

  it("parseQuantity refuses what the server refuses", async () => {
    for (const q of REFUSED) {
      const reply = await cp.api("POST", `/api/v1/namespaces/${NS}/pods?dryRun=All&fieldValidation=Strict`, pod("refused", [q]));
      expect(reply.status, `${JSON.stringify(q)}: ${reply.text.slice(0, 300)}`).toBe(400);
      expect(parseQuantity(q), JSON.stringify(q)).toBeUndefined();
    }
  });

  it("compareQuantity orders as the server does when it checks requests against limits", async () => {
    const pairs: [request: string, limit: string][] = [
      ["2048Mi", "2Gi"],
      ["2049Mi", "2Gi"],
      ["1000m", "1"],
      ["1001m", "1"],
      ["1e3", "1k"],
      ["1G", "1Gi"],
      ["1Gi", "1G"],
      ["0.5Gi", "536870912"],
      ["536870913", "0.5Gi"],
      ["1e-1000000", "1n"],
    ];
    for (const [request, limit] of pairs) {
      const body = pod("order", [], { requests: { memory: request }, limits: { memory: limit } });
      const reply = await cp.api("POST", `/api/v1/namespaces/${NS}/pods?dryRun=All&fieldValidation=Strict`, body);
      const ours = compareQuantity(parseQuantity(request)!, parseQuantity(limit)!) <= 0;
      expect(reply.status === 201, `${request} <= ${limit}: ${reply.status} ${reply.text.slice(0, 200)}`).toBe(ours);
    }
  });
});
