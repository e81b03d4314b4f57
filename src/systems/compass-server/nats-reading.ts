// What a NATS container's nats-server runs with: its flags as Go's flag package
// reads them (one or two dashes, `-x=v` or `-x v`), its --config file read by
// nats-server's grammar (nats-conf.ts), includes followed where the input
// holds them, and flags applied over the file, as server/opts.go does.
import { posix } from "node:path";
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import { envEntry, givenFlags, type Reading } from "../../k8s/flag-or-env.ts";
import { list } from "../../k8s/access.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import type { ObjectSet } from "../../rules/engine.ts";
import { type ConfMap, type ConfValue, confGet, confString, mergeInclude, readNatsConf } from "./nats-conf.ts";
import { configMapFile } from "../compass-contract/server-objects.ts";

const FLAGS = [
  "h help port p n name server_name addr a net client_advertise D debug V VV trace DV DVV T logtime logtime_utc user pass auth m http_port",
  "ms https_port c config t sl signal P pid ports_file_dir l log log_size_limit s syslog r remote_syslog version v profile routes cluster",
  "cluster_listen cluster_advertise no_advertise connect_retries cluster_name help_tls tls tlsverify tlscert tlskey tlscacert max_traced_msg_len",
  "js jetstream sd store_dir",
].flatMap((line) => line.split(" "));
const BOOL = "h help D debug V VV trace DV DVV T logtime logtime_utc t s syslog version v no_advertise help_tls tls tlsverify js jetstream".split(" ");

/** nats-server's flag set (server/opts.go ConfigureOptions). */
export const NATS_READING: Reading = {
  program: /(^|\/)nats-server$/,
  flags: { known: new Set(FLAGS.map((f) => `--${f}`)), bool: new Set(BOOL.map((f) => `--${f}`)) },
};

/** Each setting's flags: the last given of any of its names wins. */
const SETTING: Record<string, "config" | "jetstream" | "storeDir" | "user" | "pass"> = {
  c: "config",
  config: "config",
  js: "jetstream",
  jetstream: "jetstream",
  sd: "storeDir",
  store_dir: "storeDir",
  user: "user",
  pass: "pass",
};

export interface GivenSetting {
  flag: string;
  value: string;
  /** As written, before the kubelet's expansion. */
  raw: string;
  /** Inside the container: the word that holds the value. */
  path: (string | number)[];
}

/** Go's strconv.ParseBool. */
function goBool(text: string): boolean | undefined {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(text)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(text)) return false;
  return undefined;
}

/** The settings a NATS container gives by flag, after the kubelet's `$(VAR)` expansion of a whole word. */
export function natsFlags(container: Container): Partial<Record<"config" | "jetstream" | "storeDir" | "user" | "pass", GivenSetting>> {
  const out: Partial<Record<"config" | "jetstream" | "storeDir" | "user" | "pass", GivenSetting>> = {};
  for (const given of givenFlags(container, NATS_READING)) {
    const setting = SETTING[given.flag.slice(2)];
    if (!setting) continue;
    const ref = /^\$\(([A-Za-z_][A-Za-z0-9_]*)\)$/.exec(given.value);
    const env = ref ? envEntry(container, ref[1])?.env : undefined;
    const value = env && env.valueFrom === undefined ? String(env.value ?? "") : given.value;
    out[setting] = { flag: given.flag, value, raw: given.value, path: given.path };
  }
  return out;
}

/** What nats-server runs with; `unknown` names what the input cannot show. */
export interface NatsRun {
  /** Where the configuration came from, when read. */
  config?: { cm: K8sObject; key: string; path: string };
  /** nats-server's refusal to start: its own words. */
  error?: string;
  /** The parts the input cannot show (a file outside it, a value from the environment). */
  unknown: string[];
  jetstream: boolean | undefined;
  storeDir: string | undefined;
  passwordAuth: boolean | undefined;
  /** JetStream's max_memory_store in bytes, when the configuration sets it to a value. */
  memoryStore?: bigint;
  flags: ReturnType<typeof natsFlags>;
}

/** nats-server's store when none is set: os.TempDir()/nats/jetstream. */
export const DEFAULT_STORE_DIR = "/tmp/nats/jetstream";
const MAX_INCLUDES = 64;

/** The configuration file, includes merged where the input holds them; loops named. */
function readConfig(set: ObjectSet, spec: PodSpec, container: Container, path: string, run: NatsRun): ConfMap | undefined {
  const top = configMapFile(set, spec, container, path);
  if (!top) {
    run.unknown.push(`the configuration ${path} is not a ConfigMap key in the input`);
    return undefined;
  }
  run.config = { cm: top.cm, key: top.key, path };
  const first = readNatsConf(top.text);
  const queue = [{ conf: first, file: path, chain: [path] }];
  let read = 0;
  for (let item = queue.shift(); item; item = queue.shift()) {
    if (item.conf.error) {
      run.error ??= `${item.file}: ${item.conf.error}`;
      continue;
    }
    for (const env of item.conf.env) {
      if (!envEntry(container, env.name) && list(container.envFrom).length === 0)
        run.error ??= `${item.file}: variable reference for '${env.name}' on line ${env.line} can not be found`;
    }
    for (const include of item.conf.includes) {
      const file = posix.join(posix.dirname(item.file), include.path);
      if (item.chain.includes(file)) {
        run.error ??= `${item.file} line ${include.line}: include loop ${[...item.chain, file].join(" → ")}; nats-server reads it without end`;
        continue;
      }
      const found = ++read <= MAX_INCLUDES ? configMapFile(set, spec, container, file) : undefined;
      if (!found) {
        run.unknown.push(`${item.file} includes ${include.path}, which is not in the input`);
        continue;
      }
      const conf = readNatsConf(found.text);
      mergeInclude(include, conf.root);
      queue.push({ conf, file, chain: [...item.chain, file] });
    }
  }
  return first.root;
}

/** A NATS container as nats-server runs it. */
export function natsRun(set: ObjectSet, spec: PodSpec, container: Container): NatsRun {
  const flags = natsFlags(container);
  const run: NatsRun = { unknown: [], jetstream: undefined, storeDir: undefined, passwordAuth: undefined, flags };
  const shown = list(container.command).length > 0 || list(container.args).length > 0;
  if (!shown) run.unknown.push("the container runs its image's own command, which the input does not show");
  const root = flags.config?.value ? readConfig(set, spec, container, flags.config.value, run) : undefined;
  const config = root ? settingsOf(root) : undefined;
  if (config?.error) run.error ??= `${flags.config?.value}: ${config.error}`;
  // A file outside the input (the config or an include) may set anything: what it could change is not judged.
  const known = shown && run.unknown.length === 0;
  const byFlag = flags.jetstream ? goBool(flags.jetstream.value) : undefined;
  if (flags.jetstream && byFlag === undefined) run.error ??= `invalid boolean value ${JSON.stringify(flags.jetstream.value)} for ${flags.jetstream.flag}`;
  if (config?.jetstreamFromEnv && !byFlag) run.unknown.push(`jetstream is $${config.jetstreamFromEnv}, from the environment`);
  const fromFile = config?.jetstreamFromEnv ? undefined : config?.jetstream === true ? true : known ? (config?.jetstream ?? false) : undefined;
  run.jetstream = byFlag ?? fromFile;
  if (flags.storeDir && config?.storeDir !== undefined) run.error ??= "Duplicate 'store_dir' configuration: given by flag and in the file";
  // A store from the environment ($NAME) is a path the input cannot show.
  const fileStore = config?.storeDir?.startsWith("$") ? undefined : config?.storeDir;
  run.storeDir = flags.storeDir?.value || (config?.storeDir ? fileStore : known ? DEFAULT_STORE_DIR : undefined);
  const user = flags.user?.value ?? config?.user;
  const pass = flags.pass?.value ?? config?.pass;
  run.passwordAuth = Boolean(user && pass) || config?.users === true || (known ? false : undefined);
  if (config?.memoryStore !== undefined) run.memoryStore = config.memoryStore;
  return run;
}

interface FileSettings {
  jetstream?: boolean;
  /** jetstream given as `$NAME`, a value from the environment. */
  jetstreamFromEnv?: string;
  storeDir?: string;
  memoryStore?: bigint;
  user?: string;
  pass?: string;
  /** Some users, each with a password or an nkey. */
  users?: boolean;
  error?: string;
}

/** A string setting; an environment value counts as given. */
const text = (value: ConfValue | undefined) => (value?.type === "env" ? `$${value.name}` : confString(value));

/** The settings of the top-level keys, as server/opts.go reads them. */
function settingsOf(root: ConfMap): FileSettings {
  const out: FileSettings = {};
  const js = confGet(root, "jetstream")?.value;
  const topStore = text(confGet(root, "store_dir", "storedir")?.value);
  if (js?.type === "bool") out.jetstream = js.value;
  else if (js?.type === "env") out.jetstreamFromEnv = js.name;
  else if (js?.type === "string") {
    const word = js.value.toLowerCase();
    if (word === "enabled" || word === "enable") out.jetstream = true;
    else if (word === "disabled" || word === "disable") out.jetstream = false;
    else out.error = `Expected 'enabled' or 'disabled' for string value, got '${js.value}'`;
  } else if (js?.type === "map") {
    const enable = confGet(js, "enable", "enabled")?.value;
    out.jetstream = enable?.type === "bool" ? enable.value : true;
    const store = text(confGet(js, "store", "store_dir", "storedir")?.value);
    if (store !== undefined && topStore !== undefined) out.error = "Duplicate 'store_dir' configuration";
    out.storeDir = store;
    const memory = confGet(js, "max_memory_store", "max_mem_store", "max_mem")?.value;
    const size = memory ? storageSize(memory) : undefined;
    if (typeof size === "string") out.error ??= `max_mem_store ${size}`;
    else out.memoryStore = size;
  } else if (js) out.error = `Expected map, bool or string to define JetStream, got ${js.type}`;
  out.storeDir ??= topStore;
  const auth = confGet(root, "authorization")?.value;
  if (auth?.type === "map") {
    out.user = text(confGet(auth, "user", "username")?.value) ?? "";
    out.pass = text(confGet(auth, "pass", "password")?.value) ?? "";
    out.users = passwordUsers(confGet(auth, "users")?.value);
  }
  const accounts = confGet(root, "accounts")?.value;
  if (accounts?.type === "map") {
    for (const entry of accounts.entries.values()) {
      const users = entry.value.type === "map" ? confGet(entry.value, "users")?.value : undefined;
      if (passwordUsers(users)) out.users = true;
    }
  }
  return out;
}

const INT64_MAX = (1n << 63n) - 1n;
const SHIFTS: Record<string, bigint> = { K: 10n, M: 20n, G: 30n, T: 40n };

/** server/opts.go getStorageSize: an integer as it is, a string as digits and one of K, M, G, T (powers of 1024); undefined from the environment. */
function storageSize(value: ConfValue): bigint | string | undefined {
  if (value.type === "env") return undefined;
  if (value.type === "integer") return BigInt(value.value);
  if (value.type !== "string") return "must be int64 or string";
  const text = value.value;
  if (text === "") return 0n;
  // strconv.ParseInt(prefix, 10, 64) first, then the suffix.
  const digits = text.slice(0, -1);
  if (!/^[+-]?\d+$/.test(digits)) return `strconv.ParseInt: parsing ${JSON.stringify(digits)}: invalid syntax`;
  const number = BigInt(digits);
  if (number > INT64_MAX || number < -INT64_MAX - 1n) return `strconv.ParseInt: parsing ${JSON.stringify(digits)}: value out of range`;
  const shift = Object.hasOwn(SHIFTS, text.slice(-1)) ? SHIFTS[text.slice(-1)] : undefined;
  return shift === undefined ? "sizes defined as strings must end in K, M, G, T" : number << shift;
}

/** Whether a users list has users, each with a password or an nkey. */
function passwordUsers(users: ConfValue | undefined): boolean {
  if (users?.type !== "array" || users.items.length === 0) return false;
  return users.items.every((u) => u.type === "map" && (text(confGet(u, "pass", "password")?.value) || text(confGet(u, "nkey")?.value)));
}

/** The containers that run nats-server: by command, else by an image named nats; sidecars (reloader, exporter) are not. */
export function natsServerContainers(spec: PodSpec): { container: Container; index: number }[] {
  const all = list<Container>(spec.containers).map((container, index) => ({ container, index }));
  const runs = all.filter(({ container }) => {
    const command = list<unknown>(container.command);
    if (command.length > 0) return NATS_READING.program!.test(String(command[0]));
    const name = String(container.image ?? "")
      .split(/[@:]/)[0]
      .split("/")
      .pop();
    return name === "nats" || name === "nats-server";
  });
  return runs.length > 0 ? runs : all.slice(0, 1);
}
