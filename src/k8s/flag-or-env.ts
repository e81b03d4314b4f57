// A program's setting read from a container: its flags as Go's flag package
// parses them, after the kubelet's $(VAR) expansion, else its variable.
import type { Container, EnvVar, EnvVarSource } from "kubernetes-types/core/v1";
import { list } from "./access.ts";

/** The names one setting goes by: a flag with its dashes (`--listen`), a variable (`LISTEN_ADDR`), or both. */
export interface SettingNames {
  flag?: string;
  env?: string;
}

/** How a program takes its command line and environment; every field is optional. */
export interface Reading {
  /** The program's name: `command` words count only when the first names it; without it, every word past the first counts. */
  program?: RegExp;
  /** The program's flags: a bool flag never takes the next word. With `known`, the whole flag set: a known flag takes the next word whatever it is, and -h/-help are Go's own. */
  flags?: { known?: ReadonlySet<string>; bool?: ReadonlySet<string> };
  /** `flag` (default): a non-empty flag wins (Go's `orEnv`). `trueFlag`: a bool setting read as `flag || ParseBool(env)`, so a flag given false yields to a set variable. */
  precedence?: "flag" | "trueFlag";
  /** An empty variable reads as unset (Go's `orEnv` over os.Getenv), not as an empty value. */
  emptyIsUnset?: boolean;
  /** A variable not listed reads as possibly given by `envFrom` when the container has one, instead of as unset. */
  envFrom?: boolean;
}

/** Where a setting's value comes from. */
export interface FlagOrEnv {
  from: "flag" | "env" | "envFrom";
  /** The flag or variable that gave it. */
  name: string;
  /** The value, when the manifest shows it (not for valueFrom or envFrom). */
  value?: string;
  /** The variable's source when it is not a literal (also for a flag that is `$(VAR)` of such a variable). */
  valueFrom?: EnvVarSource;
  /** Inside the container: the flag's value word, `["env", i, "value"]`, `["env", i]` for valueFrom, or `["envFrom"]`. */
  path: (string | number)[];
}

/** One flag as the program parses it, in order. */
export interface GivenFlag {
  /** With two dashes, whichever the manifest wrote. */
  flag: string;
  value: string;
  /** The word that holds the value (the flag's own for `--x=v` and bool flags). */
  path: (string | number)[];
  /** In the program's flag set; always false without one. */
  known: boolean;
}

/** What the program reads for a setting: a non-empty flag (the last given wins), else its variable (the last entry wins). */
export function flagOrEnv(container: Container, names: SettingNames, reading: Reading = {}): FlagOrEnv | undefined {
  const flag = names.flag ? fromFlag(container, names.flag, reading) : undefined;
  if (flag && !(reading.precedence === "trueFlag" && GO_FALSE.test(flag.value ?? ""))) return flag;
  return (names.env ? fromEnv(container, names.env, reading) : undefined) ?? flag;
}

/** What Go's strconv.ParseBool reads as false. */
const GO_FALSE = /^(0|f|F|false|FALSE|False)$/;

/** The flag's last value, through the kubelet's $(VAR) expansion; an empty value is no value. */
function fromFlag(container: Container, flag: string, reading: Reading): FlagOrEnv | undefined {
  const given = flagValue(container, flag, reading);
  if (!given) return undefined;
  // The kubelet expands $(VAR) in arguments from the container's own variables.
  const ref = given.value.startsWith("$(") ? /^\$\(([A-Za-z_][A-Za-z0-9_]*)\)$/.exec(given.value) : null;
  const entry = ref ? envEntry(container, ref[1]) : undefined;
  if (entry?.env.valueFrom) return { from: "flag", name: flag, valueFrom: entry.env.valueFrom, path: given.path };
  const value = entry ? literal(entry.env) : given.value;
  return value === "" ? undefined : { from: "flag", name: flag, value, path: given.path };
}

function fromEnv(container: Container, name: string, reading: Reading): FlagOrEnv | undefined {
  const entry = envEntry(container, name);
  if (entry) {
    const { env, index } = entry;
    if (env.valueFrom !== undefined) return { from: "env", name, valueFrom: env.valueFrom, path: ["env", index] };
    const value = literal(env);
    return value === "" && reading.emptyIsUnset ? undefined : { from: "env", name, value, path: ["env", index, "value"] };
  }
  if (reading.envFrom && list(container.envFrom).length > 0) return { from: "envFrom", name, path: ["envFrom"] };
  return undefined;
}

/** The last entry of `name` in the container's env (the kubelet keeps the last). */
export function envEntry(container: Container, name: string): { env: EnvVar; index: number } | undefined {
  const env = list<EnvVar>(container.env);
  for (let i = env.length - 1; i >= 0; i--) if (env[i]?.name === name) return { env: env[i], index: i };
  return undefined;
}

/** The last value given to `flag` (any of Go's forms), with the word that holds it; not expanded. */
export function flagValue(container: Container, flag: string, reading: Reading = {}): { value: string; path: (string | number)[] } | undefined {
  return scan(container, reading, bareName(flag), undefined);
}

/** Every flag the program parses, in order, up to the first word that is not one. */
export function givenFlags(container: Container, reading: Reading = {}): GivenFlag[] {
  const all: GivenFlag[] = [];
  scan(container, reading, undefined, all);
  return all;
}

/** Go's flag parsing, read in place without closures since every rule asks a dozen times per container: the last value of `asked`, or every flag into `all`. */
function scan(
  container: Container,
  reading: Reading,
  asked: string | undefined,
  all: GivenFlag[] | undefined,
): { value: string; path: (string | number)[] } | undefined {
  const command = list<unknown>(container.command);
  const args = list<unknown>(container.args);
  const ours = command.length > 0 && (reading.program === undefined || reading.program.test(String(command[0])));
  const fromCommand = ours ? command.length - 1 : 0;
  const count = fromCommand + args.length;
  const set = reading.flags;
  let found: { value: string; path: (string | number)[] } | undefined;
  for (let i = 0; i < count; i++) {
    const text = wordAt(command, args, fromCommand, i);
    if (text === "--" || !text.startsWith("-") || text === "-") break;
    const body = text.slice(text.startsWith("--") ? 2 : 1);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const help = set?.known !== undefined && (name === "help" || name === "h");
    const known = set?.known ? help || set.known.has(`--${name}`) : name === asked;
    let value = "";
    let at = i;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (help || set?.bool?.has(`--${name}`)) value = "true";
    else if (i + 1 < count) {
      const next = wordAt(command, args, fromCommand, i + 1);
      // An unknown flag stops the real program; guessing that it takes a value keeps the rest readable.
      if (known || !next.startsWith("-")) {
        value = next;
        at = ++i;
      }
    }
    if (all) all.push({ flag: `--${name}`, value, path: pathAt(fromCommand, at), known });
    else if (name === asked) found = { value, path: pathAt(fromCommand, at) };
  }
  return found;
}

/** Word `i` of the program's words; hand-written manifests may hold anything, read as its text. */
function wordAt(command: readonly unknown[], args: readonly unknown[], fromCommand: number, i: number): string {
  return String(i < fromCommand ? command[i + 1] : args[i - fromCommand]);
}

/** The path inside the container of word `i`. */
function pathAt(fromCommand: number, i: number): (string | number)[] {
  return i < fromCommand ? ["command", i + 1] : ["args", i - fromCommand];
}

function bareName(flag: string): string {
  let dashes = 0;
  while (flag.charCodeAt(dashes) === 45) dashes++;
  return dashes === 0 ? flag : flag.slice(dashes);
}

function literal(env: EnvVar): string {
  return typeof env.value === "string" ? env.value : "";
}
