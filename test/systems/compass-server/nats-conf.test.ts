// The bundled NATS's configuration and flags read as nats-server reads them:
// its config grammar (conf/lex.go and conf/parse.go of nats-server), checked
// against the real nats-server's `-t`, and Go's flag package. Every case is
// the rendered example edited: an equivalent spelling keeps its verdict, a
// broken one is caught in every spelling.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap, Container } from "kubernetes-types/core/v1";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { readNatsConf } from "../../../src/systems/compass-server/nats-conf.ts";
import { expectLinear } from "../../support/linear.ts";
import { natsServerBinary } from "../../support/nats.ts";
import { render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";

const rendered = () => structuredClone(render(parse(readFileSync("examples/compass-server.yaml", "utf8")))) as K8sObject[];
const RENDERED_CONF = (() => {
  const cm = rendered().find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-nats-config")) as ConfigMap & K8sObject;
  return cm.data!["nats.conf"];
})();
const JETSTREAM_BLOCK = /jetstream \{\n[^}]*\}\n/;
const AUTH_BLOCK = /authorization \{\n[^}]*\}\n/;

/** The rendered set with the NATS config and container edited; the CS-07 and CS-13 findings, as "ID: message". */
function verdict(edit: { conf?: (text: string) => string; container?: (c: Container) => void; data?: Record<string, string> }): string[] {
  const objects = rendered();
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-nats-config")) as ConfigMap & K8sObject;
  cm.data = { ...cm.data, "nats.conf": edit.conf ? edit.conf(RENDERED_CONF) : RENDERED_CONF, ...edit.data };
  const nats = objects.find((o) => o.kind === "Deployment" && o.metadata.name.endsWith("-nats")) as Deployment & K8sObject;
  edit.container?.(nats.spec!.template.spec!.containers[0]);
  return catalog
    .checkObjects(objects)
    .filter((f) => f.id === "CS-07" || f.id === "CS-13")
    .map((f) => `${f.id}: ${f.message}`);
}

const jetstreamAs = (spelling: string) => (text: string) => text.replace(JETSTREAM_BLOCK, spelling);
const authAs = (spelling: string) => (text: string) => text.replace(AUTH_BLOCK, spelling);
const argsPlus =
  (...more: string[]) =>
  (c: Container) => {
    c.args = [...(c.args ?? []), ...more];
  };

describe("the grammar agrees with nats-server -t", () => {
  const dir = mkdtempSync(join(tmpdir(), "rigging-nats-conf-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const spellings = [
    RENDERED_CONF,
    jetstreamAs('jetstream = {\n  store_dir = "/data/jetstream"; max_file_store = 1GB\n}\n')(RENDERED_CONF),
    jetstreamAs("jetstream: {store: /data/jetstream, max_mem: 512MB}\n")(RENDERED_CONF),
    jetstreamAs("jetstream: on\nstore_dir /data/jetstream\n")(RENDERED_CONF),
    jetstreamAs("jetstream enabled // on\n# comment\n")(RENDERED_CONF),
    authAs("authorization: {\n  username = 'compass'; pass: $NATS_PASSWORD\n}\n")(RENDERED_CONF),
    authAs("authorization { users = [\n  {user: compass, password: $NATS_PASSWORD}\n] }\n")(RENDERED_CONF),
    '{"port": 4222, "jetstream": {"store_dir": "/data/jetstream"}, "authorization": {"user": "compass", "password": $NATS_PASSWORD}}',
    "PASS: $NATS_PASSWORD\nauthorization { user: compass, password: $PASS }\n",
    RENDERED_CONF.replace("jetstream {", 'jetstream {\n  domain: "a\\x41\\t"'),
    // Broken, each as nats-server words it.
    RENDERED_CONF.replace(/\}\n$/, "\n"),
    RENDERED_CONF.replace("port: 4222", 'server_name: "unterminated'),
    RENDERED_CONF.replace("port: 4222", "port: [1, 2"),
    RENDERED_CONF.replace("port: 4222", "port: 42 22"),
    RENDERED_CONF.replace("port: 4222", 'x: "\\q"'),
    RENDERED_CONF.replace("port: 4222", "x: .5"),
    RENDERED_CONF.replace("port: 4222", "x = 99999999999999999999"),
  ];

  it.each(spellings.map((s, i) => [i, s]))("spelling %i", (i, text) => {
    const file = join(dir, `${i}.conf`);
    // The store is the test's own directory; both readers read the same text.
    const written = text.replace("/data/jetstream", join(dir, `store${i}`));
    writeFileSync(file, written);
    const real = spawnSync(natsServerBinary(), ["-t", "-c", file], { encoding: "utf8", env: { ...process.env, NATS_PASSWORD: "p" } });
    const ours = readNatsConf(written);
    const said = `${real.stdout}${real.stderr}`;
    if (real.status === 0) expect(ours.error, said).toBeUndefined();
    else if (/Parse error|out of the range|config is invalid/.test(said)) expect(said).toContain(ours.error);
    else expect(real.status, said).toBe(0);
  });
});

describe("JetStream (CS-13) in every spelling nats-server takes", () => {
  it("the rendered example is clean", () => expect(verdict({})).toEqual([]));

  it.each([
    ["jetstream = { ... }", jetstreamAs('jetstream = {\n  store_dir = "/data/jetstream"\n  max_file_store = 1GB\n}\n')],
    ["jetstream: { store: ... }, on one line", jetstreamAs("jetstream: {store: /data/jetstream, max_file: 1GiB}\n")],
    ["storedir inside, ; separators", jetstreamAs("jetstream {storedir: '/data/jetstream'; max_mem: 64MB}\n")],
    ["jetstream: on with a top-level store_dir", jetstreamAs("jetstream: on\nstore_dir = /data/jetstream\n")],
    ["jetstream enabled, blank-separated", jetstreamAs("jetstream enabled\nstore_dir /data/jetstream\n")],
    ["jetstream: yes / true / ENABLED", jetstreamAs("JetStream: yes\nSTORE_DIR: /data/jetstream\n")],
    ["JSON-like", () => '{"jetstream": {"store_dir": "/data/jetstream"}, "authorization": {"user": "compass", "password": $NATS_PASSWORD}}'],
    ["a variable defined in the file", (t: string) => `DIR: /data/jetstream\n${jetstreamAs("jetstream { store_dir: $DIR }\n")(t)}`],
  ])("%s", (_, conf) => expect(verdict({ conf })).toEqual([]));

  it.each([
    ["-js -sd", ["-js", "-sd", "/data/jetstream"]],
    ["--js --store_dir=", ["--js", "--store_dir=/data/jetstream"]],
    ["--jetstream=true -store_dir", ["--jetstream=true", "-store_dir", "/data/jetstream"]],
  ])("by flags: %s", (_, args) => expect(verdict({ conf: jetstreamAs(""), container: argsPlus(...args) })).toEqual([]));

  it("an include in the same ConfigMap is followed", () =>
    expect(verdict({ conf: jetstreamAs("include ./js.conf\n"), data: { "js.conf": 'jetstream {\n  store_dir: "/data/jetstream"\n}\n' } })).toEqual([]));

  const off = ["CS-13: the bundled NATS runs without JetStream, which the Server's event fabric needs"];
  it.each([
    ["no jetstream", jetstreamAs("")],
    ["jetstream: off", jetstreamAs("jetstream: off\n")],
    ["jetstream = false", jetstreamAs("jetstream = false\n")],
    ["jetstream no", jetstreamAs("jetstream no\n")],
    ["jetstream: disabled", jetstreamAs('jetstream: "disabled"\n')],
    ["a block with enabled: false", jetstreamAs("jetstream { enabled: false }\n")],
    ["commented out with #", (t: string) => t.replace("jetstream {", "# jetstream {\nx {")],
    ["commented out with //", jetstreamAs("// jetstream: on\n")],
    ["only inside a string", jetstreamAs('server_name: "jetstream { on }"\n')],
  ])("caught: %s", (_, conf) => expect(verdict({ conf })).toEqual(off));

  it.each([["-js=false"], ["--jetstream=false"], ["-js=0"]])("caught: %s over a file that turns it on (flags win)", (flag) =>
    expect(verdict({ container: argsPlus(flag) })).toEqual(off));

  const readOnly = ["CS-13: the JetStream store /etc/nats/js is not on a writable volume"];
  it.each([
    ["store_dir", (t: string) => t.replace('store_dir: "/data/jetstream"', "store_dir: /etc/nats/js")],
    ["store", (t: string) => t.replace('store_dir: "/data/jetstream"', "store = '/etc/nats/js'")],
    ["top-level storedir", (t: string) => t.replace('  store_dir: "/data/jetstream"\n', "").replace("jetstream {", "storedir: /etc/nats/js\njetstream {")],
  ])("caught: a read-only store by %s", (_, conf) => expect(verdict({ conf })).toEqual(readOnly));

  it("caught: a read-only store by -sd", () =>
    expect(verdict({ conf: jetstreamAs("jetstream: on\n"), container: argsPlus("-sd", "/etc/nats/js") })).toEqual(readOnly));

  it("caught: -sd beside a store_dir, which nats-server refuses", () =>
    expect(verdict({ container: argsPlus("--sd=/data/jetstream") })).toEqual([
      "CS-13: nats-server refuses to start: Duplicate 'store_dir' configuration: given by flag and in the file",
    ]));
});

describe("password authorization (CS-07) in every spelling", () => {
  it.each([
    ["authorization: {", authAs("authorization: {\n  user: compass\n  password: $NATS_PASSWORD\n}\n")],
    ["authorization = { username, pass }", authAs("authorization = { username = compass; pass = $NATS_PASSWORD }\n")],
    ["a users list", authAs("authorization {\n  users: [\n    {user: compass, password: $NATS_PASSWORD}\n  ]\n}\n")],
    ["an account's users", authAs("accounts {\n  COMPASS {\n    users = [{user: compass, password: $NATS_PASSWORD}]\n  }\n}\n")],
  ])("%s", (_, conf) => expect(verdict({ conf })).toEqual([]));

  it.each([
    ["-user -pass", ["-user", "compass", "-pass", "$(NATS_PASSWORD)"]],
    ["--user= --pass=", ["--user=compass", "--pass=$(NATS_PASSWORD)"]],
  ])("by flags: %s", (_, args) => expect(verdict({ conf: authAs(""), container: argsPlus(...args) })).toEqual([]));

  const none = ["CS-07: the bundled NATS has no password authorization"];
  it.each([
    ["no authorization", authAs("")],
    ["the password commented out", (t: string) => t.replace("  password:", "  # password:")],
    ["a password without a user", (t: string) => t.replace(/ {2}user: .*\n/, "")],
    ["a user of the list without a password", authAs("authorization { users: [{user: a, password: $NATS_PASSWORD}, {user: b}] }\n")],
    ["the word only in a string", authAs('server_name: "authorization { password: x }"\n')],
  ])("caught: %s", (_, conf) => expect(verdict({ conf })).toEqual(none));

  it.each([
    ["-pass x", ["-user", "compass", "-pass", "hunter2"], "-pass"],
    ["--pass x", ["--user", "compass", "--pass", "hunter2"], "--pass"],
    ["-pass=x", ["-user=compass", "-pass=hunter2"], "-pass"],
    ["--pass=x", ["--user=compass", "--pass=hunter2"], "--pass"],
  ])("caught: an inline password by %s", (_, args) =>
    expect(verdict({ conf: authAs(""), container: argsPlus(...args) })).toEqual(["CS-07: --pass carries the NATS password inline"]));
});

describe("bad input: a clear finding, no crash, linear time", () => {
  it("an unterminated block", () =>
    expect(verdict({ conf: (t) => t.replace(/\}\n$/, "") })).toEqual([
      "CS-13: nats-server refuses to start: /etc/nats/nats.conf: Parse error on line 11: 'Unexpected EOF processing map.'",
    ]));

  it("an include loop, named", () =>
    expect(verdict({ conf: (t) => `${t}include ./a.conf\n`, data: { "a.conf": "include nats.conf\n" } })).toEqual([
      "CS-13: nats-server refuses to start: /etc/nats/a.conf line 1: include loop /etc/nats/nats.conf → /etc/nats/a.conf → /etc/nats/nats.conf; nats-server reads it without end",
    ]));

  it("a file including itself", () =>
    expect(verdict({ conf: (t) => `${t}include "nats.conf"\n` })[0]).toMatch(/include loop \/etc\/nats\/nats\.conf → \/etc\/nats\/nats\.conf/));

  it("an include outside the input leaves JetStream and the password not judged", () =>
    expect(verdict({ conf: (t) => authAs("")(jetstreamAs("include /etc/nats-extra/rest.conf\n")(t)) })).toEqual([]));

  it("a store from the environment is not judged", () =>
    expect(
      verdict({
        conf: (t) => t.replace('store_dir: "/data/jetstream"', "store_dir: $JS_DIR"),
        container: (c) => c.env!.push({ name: "JS_DIR", value: "/etc/nats/js" }),
      }),
    ).toEqual([]));

  it("a password variable the container does not set", () =>
    expect(verdict({ container: (c) => (c.env = []) })).toEqual([
      "CS-13: nats-server refuses to start: /etc/nats/nats.conf: variable reference for 'NATS_PASSWORD' on line 10 can not be found",
    ]));

  it("deep nesting, read in linear time", () => {
    const deep = (n: number) => `${"a {\n".repeat(n)}${"}\n".repeat(n)}`;
    expect(readNatsConf(deep(100_000)).error).toBeUndefined();
    expect(readNatsConf(deep(100_000).slice(0, -2)).error).toBe("Parse error on line 200000: 'Unexpected EOF processing map.'");
    expectLinear([20_000, 40_000, 80_000, 160_000], (n) => {
      const text = deep(n);
      return () => expect(readNatsConf(text).error).toBeUndefined();
    });
  });

  it("many variables under deep nesting, in linear time", () => {
    expectLinear([5_000, 10_000, 20_000, 40_000], (n) => {
      const text = `v: 1\n${"a {\n".repeat(n)}${"x: $v\n".repeat(n)}${"}\n".repeat(n)}`;
      return () => expect(readNatsConf(text).error).toBeUndefined();
    });
  });
});
