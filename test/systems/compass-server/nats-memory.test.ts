// The JetStream memory store against the NATS container's memory limit (CS-13):
// refused in values, flagged in `check` by value on both sides (the store as
// nats-server reads it, checked against the real nats-server; the limit as a
// Kubernetes quantity), not judged where the input cannot show it. And the
// checksum of nats.conf on the NATS pod template, which restarts it.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap, Container } from "kubernetes-types/core/v1";
import { afterAll, describe, expect, it } from "vitest";
import { parse, parseDocument } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { ObjectSet } from "../../../src/rules/engine.ts";
import { natsRun } from "../../../src/systems/compass-server/nats-reading.ts";
import { natsServerBinary } from "../../support/nats.ts";
import { expectRefused, refusal, render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";

const SERVER = readFileSync("examples/compass-server.yaml", "utf8");
const COMPASS = readFileSync("examples/compass.yaml", "utf8");
const HASH = "rigging.dev/nats-config-sha256";

function edited(text: string, edits: [(string | number)[], unknown][]): string {
  const doc = parseDocument(text);
  for (const [path, value] of edits) doc.setIn(path, doc.createNode(value));
  return doc.toString();
}

const natsConfigMap = (objects: K8sObject[]) =>
  objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-nats-config")) as ConfigMap & K8sObject;
const natsDeployment = (objects: K8sObject[]) => objects.find((o) => o.kind === "Deployment" && o.metadata.name.endsWith("-nats")) as Deployment & K8sObject;

describe("values: maxMemoryStoreMiB below the NATS memory limit (CS-13)", () => {
  it("refuses a store above the limit, naming the key, the limit and why", () => {
    const d = expectRefused(edited(SERVER, [[["nats", "jetstream", "maxMemoryStoreMiB"], 512]]), "CS-13", "nats.jetstream.maxMemoryStoreMiB");
    expect(d.message).toContain("at or above the NATS memory limit 256Mi (resources.limits.memory)");
    expect(d.message).toContain("so a store that reaches the limit gets NATS OOM-killed");
    expect(d.fix).toContain("raise resources.limits.memory");
  });

  it("refuses a store equal to the limit (nothing is left for nats-server), by value: 256 MiB against 0.25Gi", () => {
    expectRefused(
      edited(SERVER, [
        [["nats", "jetstream", "maxMemoryStoreMiB"], 256],
        [["nats", "resources"], { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "0.25Gi" } }],
      ]),
      "CS-13",
      "nats.jetstream.maxMemoryStoreMiB",
    );
  });

  it("accepts a store below the limit, whatever its spelling", () => {
    for (const limit of ["1Gi", "1024Mi", "1073741824"]) {
      const objects = render(
        edited(SERVER, [
          [["nats", "jetstream", "maxMemoryStoreMiB"], 512],
          [["nats", "resources"], { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: limit } }],
        ]),
      );
      expect(natsConfigMap(objects).data!["nats.conf"]).toContain("max_memory_store: 536870912");
    }
    expect(() => render(edited(SERVER, [[["nats", "jetstream", "maxMemoryStoreMiB"], 255]]))).not.toThrow();
  });

  it("refuses it in a kind: Compass file under server.nats", () => {
    const text = edited(COMPASS, [[["server", "nats", "jetstream", "maxMemoryStoreMiB"], 512]]);
    expect(refusal(text).map((d) => [d.id, d.path])).toContainEqual(["CS-13", "server.nats.jetstream.maxMemoryStoreMiB"]);
  });
});

/** The rendered example with nats.conf's jetstream block and the NATS container edited; the CS-13 findings. */
function verdict(jetstream: string, container?: (c: Container) => void, data?: Record<string, string>): { path: string; message: string }[] {
  const objects = structuredClone(render(SERVER));
  const cm = natsConfigMap(objects);
  cm.data = { "nats.conf": cm.data!["nats.conf"].replace(/jetstream \{\n[^}]*\}\n/, jetstream), ...data };
  container?.(natsDeployment(objects).spec!.template.spec!.containers[0]);
  return catalog
    .checkObjects(objects)
    .filter((f) => f.id === "CS-13")
    .map((f) => ({ path: f.path.join("."), message: f.message }));
}

const block = (memory: string) => `jetstream {\n  store_dir: "/data/jetstream"\n  ${memory}\n}\n`;
const limitOf = (memory: string) => (c: Container) => {
  c.resources!.limits!.memory = memory;
};
const AT_LIMIT = "spec.template.spec.containers.0.resources.limits.memory";

describe("check: a NATS configuration's memory store against its container's limit (CS-13)", () => {
  it("flags a store above the 256Mi limit, at the limit, with the config that names it and why", () => {
    expect(verdict(block("max_memory_store: 536870912"))).toEqual([
      {
        path: AT_LIMIT,
        message:
          "the JetStream memory store, max_memory_store 512 MiB (/etc/nats/nats.conf, ConfigMap compass-server-nats-config), is at or above the NATS container's memory limit 256Mi: JetStream keeps its memory store in the NATS container's memory, beside nats-server itself, so a store that reaches the limit gets NATS OOM-killed",
      },
    ]);
  });

  it.each([
    ["max_mem: 512M, unquoted (512000000 bytes)", "max_mem: 512M"],
    ['max_mem_store: "256M", quoted (256 MiB, the limit itself)', 'max_mem_store: "256M"'],
    ["max_memory_store: 1GB", "max_memory_store: 1GB"],
    ["MAX_MEM = 268435456", "MAX_MEM = 268435456"],
  ])("%s is flagged", (_, memory) => {
    expect(verdict(block(memory)).map((f) => f.path)).toEqual([AT_LIMIT]);
  });

  it.each([
    ["255MB", "max_mem: 255MB"],
    ["a quoted 255M", 'max_mem: "255M"'],
    ["the rendered 64 MiB", "max_memory_store: 67108864"],
    ["no memory store set (nats-server sizes it from the node, which the input cannot show)", ""],
    ["a store from the environment", "max_mem: $NATS_MEMORY_STORE"],
  ])("%s is not flagged", (_, memory) => {
    expect(verdict(block(memory), (c) => c.env!.push({ name: "NATS_MEMORY_STORE", value: "1G" }))).toEqual([]);
  });

  it("compares the limit by value: 536870912, 512Mi and 0.5Gi are one limit, which a 512 MiB store reaches", () => {
    for (const limit of ["536870912", "512Mi", "0.5Gi"]) expect(verdict(block("max_mem: 512MB"), limitOf(limit)).map((f) => f.path)).toEqual([AT_LIMIT]);
    expect(verdict(block("max_mem: 512MB"), limitOf("513Mi"))).toEqual([]);
  });

  it("is not judged when the input cannot show it: no memory limit, or an include outside the input", () => {
    expect(verdict(block("max_mem: 512MB"), (c) => delete c.resources!.limits!.memory)).toEqual([]);
    expect(verdict(`${block("max_mem: 512MB")}include ./more.conf\n`)).toEqual([]);
  });

  it("follows an include in the input", () => {
    expect(verdict('jetstream {\n  store_dir: "/data/jetstream"\n  include ./memory.conf\n}\n', undefined, { "memory.conf": "max_mem: 1G\n" })).toHaveLength(1);
  });

  it("a store nats-server cannot read is its refusal to start, in its words", () => {
    expect(verdict(block('max_mem: "512MB"')).map((f) => f.message)).toEqual([
      'nats-server refuses to start: /etc/nats/nats.conf: max_mem_store strconv.ParseInt: parsing "512M": invalid syntax',
    ]);
    expect(verdict(block("max_mem: 0.5")).map((f) => f.message)).toEqual([
      "nats-server refuses to start: /etc/nats/nats.conf: max_mem_store must be int64 or string",
    ]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The JetStream max_memory nats-server runs with, from its monitoring endpoint. */
async function realMaxMemory(dir: string, memory: string): Promise<number> {
  const [client, monitor] = [await freePort(), await freePort()];
  const file = join(dir, `${client}.conf`);
  writeFileSync(file, `port: ${client}\nhttp: ${monitor}\njetstream {\n  store_dir: ${JSON.stringify(join(dir, String(client)))}\n  ${memory}\n}\n`);
  const server = spawn(natsServerBinary(), ["-a", "127.0.0.1", "-c", file], { stdio: "ignore" });
  try {
    for (let i = 0; i < 100; i++) {
      const varz = await fetch(`http://127.0.0.1:${monitor}/varz`).then(
        (r) => r.json() as Promise<{ jetstream?: { config?: { max_memory?: number } } }>,
        () => undefined,
      );
      if (varz?.jetstream?.config?.max_memory !== undefined) return varz.jetstream.config.max_memory;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server did not serve /varz for ${memory}`);
  } finally {
    server.kill();
  }
}

describe("the memory store is read as the real nats-server reads it", () => {
  const dir = mkdtempSync(join(tmpdir(), "rigging-nats-memory-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(["max_mem: 512M", 'max_mem: "512M"', "max_memory_store: 512MB", 'max_mem_store: "1G"'])("%s", async (memory) => {
    const conf = `jetstream {\n  store_dir: "/data/jetstream"\n  ${memory}\n}\n`;
    const objects = structuredClone(render(SERVER));
    natsConfigMap(objects).data = { "nats.conf": conf };
    const deployment = natsDeployment(objects);
    const spec = deployment.spec!.template.spec!;
    const ours = natsRun(new ObjectSet("compass-server", objects), spec, spec.containers[0]);
    expect(Number(ours.memoryStore)).toBe(await realMaxMemory(dir, memory));
  });

  it("a store it refuses, it refuses in the same words", () => {
    const file = join(dir, "refused.conf");
    writeFileSync(file, `jetstream {\n  store_dir: ${JSON.stringify(join(dir, "refused"))}\n  max_mem: "512MB"\n}\n`);
    const real = spawnSync(natsServerBinary(), ["-t", "-c", file], { encoding: "utf8" });
    expect(real.status).not.toBe(0);
    expect(`${real.stdout}${real.stderr}`).toContain('max_mem_store strconv.ParseInt: parsing "512M": invalid syntax');
  });
});

describe("the NATS pod template carries the hash of nats.conf, so a configuration change restarts it", () => {
  it("is the SHA-256 of the rendered nats.conf (16 hex digits), the same run after run", () => {
    const objects = render(SERVER);
    const conf = natsConfigMap(objects).data!["nats.conf"];
    const annotations = natsDeployment(objects).spec!.template.metadata!.annotations!;
    expect(annotations[HASH]).toBe(createHash("sha256").update(conf).digest("hex").slice(0, 16));
    expect(natsDeployment(render(SERVER)).spec!.template.metadata!.annotations![HASH]).toBe(annotations[HASH]);
    expect(annotations["rigging.dev/image-tag"]).toBeUndefined();
  });

  it("changes with the configuration and with nothing else", () => {
    const hashOf = (text: string) => natsDeployment(render(text)).spec!.template.metadata!.annotations![HASH];
    const base = hashOf(SERVER);
    expect(hashOf(edited(SERVER, [[["nats", "jetstream", "maxMemoryStoreMiB"], 128]]))).not.toBe(base);
    expect(hashOf(edited(SERVER, [[["nats", "user"], "events"]]))).not.toBe(base);
    expect(hashOf(edited(SERVER, [[["nats", "resources"], { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "512Mi" } }]]))).toBe(base);
  });

  it("sits beside the paired tag's annotation", () => {
    const text = SERVER.replace("image: nats@sha256:", "image: nats:2.10.22@sha256:");
    expect(parse(text).nats.image).toContain("nats:2.10.22@");
    expect(Object.keys(natsDeployment(render(text)).spec!.template.metadata!.annotations!)).toEqual(["rigging.dev/image-tag", HASH]);
  });
});
