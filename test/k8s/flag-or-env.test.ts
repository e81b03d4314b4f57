// A setting read as Go's flag package and the kubelet hand it to the program,
// on constructed containers.
import { describe, expect, it } from "vitest";
import type { Container } from "kubernetes-types/core/v1";
import { flagOrEnv, flagValue, givenFlags, type Reading } from "../../src/k8s/flag-or-env.ts";

const c = (container: Partial<Container>): Container => ({ name: "c", ...container });
const SERVER = { flag: "--server", env: "COMPASS_SERVER_ADDR" };
const ENV = [{ name: "COMPASS_SERVER_ADDR", value: "https://env" }];
/** A program with a flag set, as Go's flag package knows it. */
const GO: Reading = {
  program: /(^|\/)prog$/,
  flags: { known: new Set(["--database", "--listen", "--tls"]), bool: new Set(["--tls"]) },
  emptyIsUnset: true,
};
const DATABASE = { flag: "--database", env: "DSN" };

describe("flag forms: a non-empty flag wins over the variable, the last one given counts", () => {
  it.each([
    [["--server", "https://a"], "flag", "https://a"],
    [["--server=https://a"], "flag", "https://a"],
    [["-server", "https://a"], "flag", "https://a"],
    [["-server=https://a"], "flag", "https://a"],
    [["--backend", "microvm", "--server", "https://a"], "flag", "https://a"],
    [["--server", "https://a", "--server=https://b"], "flag", "https://b"],
    [["--server=https://a", "--server="], "env", "https://env"],
    [["--server"], "env", "https://env"],
    [["run", "--server", "https://a"], "env", "https://env"],
    [["--", "--server", "https://a"], "env", "https://env"],
    [["--backend", "microvm", "-", "--server", "https://a"], "env", "https://env"],
  ])("args %j: from %s, %s", (args, from, value) => {
    const s = flagOrEnv(c({ args, env: ENV }), SERVER);
    expect([s?.from, s?.value]).toEqual([from, value]);
  });

  it("reads command past the program, then args, as one list of words", () => {
    expect(flagOrEnv(c({ command: ["/prog", "--server", "https://a"] }), SERVER)).toEqual({
      from: "flag",
      name: "--server",
      value: "https://a",
      path: ["command", 2],
    });
    expect(flagOrEnv(c({ command: ["/prog", "--server"], args: ["https://a"] }), SERVER)?.path).toEqual(["args", 0]);
    expect(flagOrEnv(c({ command: ["/prog", "--server=https://a"], args: ["--server", "https://b"] }), SERVER)?.path).toEqual(["args", 1]);
    expect(flagOrEnv(c({ command: ["/prog", "--server=https://a"], args: ["run", "--server", "https://b"] }), SERVER)?.path).toEqual(["command", 1]);
    // Another flag's separate value is skipped across the boundary too.
    expect(flagOrEnv(c({ command: ["/prog", "--backend"], args: ["microvm", "--server", "https://c"] }), SERVER)?.path).toEqual(["args", 2]);
    // The program itself is not a flag, even when it looks like one.
    expect(flagOrEnv(c({ command: ["--server=https://a"] }), SERVER)).toBeUndefined();
  });

  it("with a program name, command words count only when command runs that program", () => {
    const wrapped = c({ command: ["/bin/wrapper", "--database=z"], args: ["--database", "x"] });
    expect(flagOrEnv(wrapped, DATABASE, GO)?.path).toEqual(["args", 1]);
    expect(flagOrEnv(c({ command: ["/bin/wrapper", "--database=z"] }), DATABASE, GO)).toBeUndefined();
    expect(flagOrEnv(c({ command: ["/bin/wrapper", "--database=z"] }), DATABASE)?.value).toBe("z");
    expect(flagOrEnv(c({ command: ["/bin/prog", "--database=a"], args: ["--listen", ":1"] }), DATABASE, GO)?.path).toEqual(["command", 1]);
  });
});

describe("Go's flag set, when the program's flags are known", () => {
  it("a bool flag is true alone and never takes the next word; a word that is not a flag ends parsing", () => {
    expect(flagValue(c({ args: ["--tls", "--database", "a"] }), "--tls", GO)).toEqual({ value: "true", path: ["args", 0] });
    expect(flagValue(c({ args: ["--tls", "--database", "a"] }), "--database", GO)?.value).toBe("a");
    expect(flagValue(c({ args: ["--tls", "false", "--database", "a"] }), "--database", GO)).toBeUndefined();
    expect(flagValue(c({ args: ["--tls=false"] }), "--tls", GO)?.value).toBe("false");
    // Without the flag set the reader cannot tell, and reads the word as the flag's value.
    expect(flagValue(c({ args: ["--tls", "false", "--database", "a"] }), "--database")?.value).toBe("a");
  });

  it("a known flag takes the next word even when it starts with a dash; an unknown one does not", () => {
    expect(flagValue(c({ args: ["--database", "-x"] }), "--database", GO)?.value).toBe("-x");
    expect(givenFlags(c({ args: ["--nope", "--database", "a", "-h"] }), GO)).toEqual([
      { flag: "--nope", value: "", path: ["args", 0], known: false },
      { flag: "--database", value: "a", path: ["args", 2], known: true },
      { flag: "--h", value: "true", path: ["args", 3], known: true },
    ]);
    expect(givenFlags(c({ args: ["-listen", ":1", "run", "--tls"] }))).toEqual([{ flag: "--listen", value: ":1", path: ["args", 1], known: false }]);
  });
});

describe("a bool setting read as flag || ParseBool(env)", () => {
  const QUOTA = { flag: "--quota", env: "QUOTA" };
  const BOOL: Reading = { flags: { bool: new Set(["--quota"]) }, emptyIsUnset: true, precedence: "trueFlag" };
  const env = [{ name: "QUOTA", value: "true" }];
  it("a true or unreadable flag wins; a false one yields to a set variable and answers when none is set", () => {
    expect(flagOrEnv(c({ args: ["--quota"], env: [{ name: "QUOTA", value: "false" }] }), QUOTA, BOOL)).toMatchObject({ from: "flag", value: "true" });
    expect(flagOrEnv(c({ args: ["--quota=maybe"], env }), QUOTA, BOOL)).toMatchObject({ from: "flag", value: "maybe" });
    expect(flagOrEnv(c({ args: ["--quota=false"], env }), QUOTA, BOOL)).toMatchObject({ from: "env", value: "true", path: ["env", 0, "value"] });
    expect(flagOrEnv(c({ args: ["--quota=0"] }), QUOTA, BOOL)).toMatchObject({ from: "flag", value: "0", path: ["args", 0] });
    // Under the default precedence the same false flag wins.
    expect(flagOrEnv(c({ args: ["--quota=false"], env }), QUOTA, { ...BOOL, precedence: "flag" })?.from).toBe("flag");
  });

  it("a bool flag known without the whole flag set still leaves the next word alone", () => {
    expect(flagOrEnv(c({ args: ["--quota", "--server", "https://a"] }), SERVER, BOOL)?.value).toBe("https://a");
    expect(flagOrEnv(c({ args: ["--quota", "https://a", "--server", "https://b"] }), SERVER, BOOL)).toBeUndefined();
  });
});

describe("variables", () => {
  it("the last entry of a name counts, at its value", () => {
    const env = [
      { name: "COMPASS_SERVER_ADDR", value: "x" },
      { name: "COMPASS_SERVER_ADDR", value: "y" },
    ];
    expect(flagOrEnv(c({ env }), SERVER)).toEqual({ from: "env", name: "COMPASS_SERVER_ADDR", value: "y", path: ["env", 1, "value"] });
  });

  it("a valueFrom gives its source, not a value, at the entry", () => {
    const valueFrom = { secretKeyRef: { name: "s", key: "k" } };
    expect(flagOrEnv(c({ env: [{ name: "COMPASS_SERVER_ADDR", valueFrom }] }), SERVER)).toEqual({
      from: "env",
      name: "COMPASS_SERVER_ADDR",
      valueFrom,
      path: ["env", 0],
    });
  });

  it("an empty variable is a value, or unset with emptyIsUnset (Go's orEnv)", () => {
    const empty = c({ env: [{ name: "COMPASS_SERVER_ADDR", value: "" }] });
    expect(flagOrEnv(empty, SERVER)?.value).toBe("");
    expect(flagOrEnv(empty, SERVER, { emptyIsUnset: true })).toBeUndefined();
    expect(flagOrEnv(c({ args: ["--server="], env: [{ name: "COMPASS_SERVER_ADDR", value: "" }] }), SERVER, { emptyIsUnset: true })).toBeUndefined();
  });

  it("a variable envFrom may hold is reported only when asked for; nothing set reads as undefined", () => {
    const bulk = c({ envFrom: [{ configMapRef: { name: "m" } }] });
    expect(flagOrEnv(bulk, SERVER, { envFrom: true })).toEqual({ from: "envFrom", name: "COMPASS_SERVER_ADDR", path: ["envFrom"] });
    expect(flagOrEnv(bulk, SERVER)).toBeUndefined();
    expect(flagOrEnv(c({}), SERVER)).toBeUndefined();
    expect(flagOrEnv(c({ args: ["--server", "a"] }), { env: "COMPASS_SERVER_ADDR" })).toBeUndefined();
  });
});

describe("$(VAR) in a flag, as the kubelet expands it", () => {
  const valueFrom = { secretKeyRef: { name: "s", key: "dsn" } };
  it("reads through the container's variable: its source, or its literal", () => {
    expect(flagOrEnv(c({ args: ["--database", "$(X)"], env: [{ name: "X", valueFrom }] }), DATABASE, GO)).toEqual({
      from: "flag",
      name: "--database",
      valueFrom,
      path: ["args", 1],
    });
    expect(flagOrEnv(c({ args: ["--database=$(X)"], env: [{ name: "X", value: "pg://h" }] }), DATABASE, GO)?.value).toBe("pg://h");
  });

  it("an empty expansion falls to the variable; an unknown name stays as written", () => {
    const env = [
      { name: "X", value: "" },
      { name: "DSN", value: "pg://env" },
    ];
    expect(flagOrEnv(c({ args: ["--database", "$(X)"], env }), DATABASE, GO)?.from).toBe("env");
    expect(flagOrEnv(c({ args: ["--database", "$(NOPE)"] }), DATABASE, GO)?.value).toBe("$(NOPE)");
  });
});
