// A real control plane on 127.0.0.1 for the cluster tests: etcd and
// kube-apiserver built from their Go modules (scripts/test-tools.mjs), with
// their own certificates, service-account key and token file, RBAC and the
// default admission plugins (ValidatingAdmissionPolicy and Pod Security
// included). No controller manager runs: see ../../../docs/testing.md.
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../support/cli.ts";
import { run } from "./run.ts";

const exec = promisify(execFile);
const PREFIX = "rigging-cluster-";
export const ISSUER = "https://kubernetes.default.svc.cluster.local";

/** Identities with a token of their own (user, groups); everyone else is impersonated by `admin`. */
export const IDENTITIES = {
  admin: { user: "test-admin", groups: ["system:masters"] },
  alice: { user: "alice", groups: ["developers"] },
  bob: { user: "bob", groups: [] as string[] },
} as const;

export interface As {
  /** One of IDENTITIES by its own token, or anyone by impersonation. */
  identity?: keyof typeof IDENTITIES;
  user?: string;
  groups?: readonly string[];
  /** No credentials at all: the anonymous user. */
  anonymous?: boolean;
}

export interface Reply {
  status: number;
  text: string;
  json(): Record<string, unknown>;
}

export interface ControlPlane {
  server: string;
  caFile: string;
  /** A kubeconfig whose user is `admin` (system:masters). */
  kubeconfig: string;
  dir: string;
  api(method: string, path: string, body?: unknown, as?: As, contentType?: string): Promise<Reply>;
  kubectl(args: string[], input?: string): Promise<{ code: number; out: string; err: string }>;
  stop(): Promise<void>;
}

/** The built programs, by name (etcd, kube-apiserver, helm4, ...): npm test builds them first. */
export function testTool(name: string): string {
  const r = spawnSync(process.execPath, [join(ROOT, "scripts/test-tools.mjs"), "--print"], { encoding: "utf8" });
  const line = r.stdout.split("\n").find((l) => l.startsWith(`${name}=`));
  const path = line?.slice(name.length + 1);
  if (!path || !existsSync(path))
    throw new Error(`${name} is not built (${path ?? "unknown tool"}): run node scripts/test-tools.mjs, which npm test runs first (it needs Go: see README)`);
  return path;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** A process that runs: not gone, and not a zombie waiting for its parent to reap it. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return !/^\d+ \(.*\) Z/.test(stat);
};

/** Clears what a killed run left: its etcd and API server (by the pids it recorded, if they still run from its folder) and its folder. */
export function sweepStale(): void {
  for (const name of readdirSync(tmpdir())) {
    const owner = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (!owner || alive(Number(owner[1]))) continue;
    const dir = join(tmpdir(), name);
    const pids = existsSync(join(dir, "pids")) ? readFileSync(join(dir, "pids"), "utf8").split("\n").filter(Boolean).map(Number) : [];
    for (const pid of pids) {
      const cmdline = existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, "utf8") : "";
      if (cmdline.includes(dir)) process.kill(pid, "SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

async function makeCertificates(dir: string): Promise<void> {
  const run = (args: string[]) => exec("openssl", args, { cwd: dir });
  const ecKey = (name: string) => ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`];
  await run(["req", "-x509", ...ecKey("ca"), "-out", "ca.crt", "-subj", "/CN=test-ca", "-days", "2"]);
  await run(["req", ...ecKey("serving"), "-out", "serving.csr", "-subj", "/CN=kube-apiserver"]);
  writeFileSync(join(dir, "serving.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  await run([
    "x509",
    "-req",
    "-in",
    "serving.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "serving.crt",
    "-days",
    "2",
    "-extfile",
    "serving.ext",
  ]);
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  writeFileSync(join(dir, "sa.pub"), publicKey.export({ type: "spki", format: "pem" }));
  writeFileSync(join(dir, "sa.key"), privateKey.export({ type: "pkcs8", format: "pem" }));
}

interface Started {
  child: ChildProcess;
  log: () => string;
}

function startProcess(dir: string, name: string, binary: string, args: string[]): Started {
  const logFile = join(dir, `${name}.log`);
  writeFileSync(logFile, "");
  let log = "";
  const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    log = (log + chunk).slice(-64 * 1024);
  });
  writeFileSync(join(dir, "pids"), `${child.pid}\n`, { flag: "a" });
  return { child, log: () => log };
}

/** Waits for `ready` to hold, failing with the process's log if it exits first or time runs out. */
async function waitFor(what: string, started: Started, ready: () => Promise<boolean>, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (started.child.exitCode !== null || started.child.signalCode !== null)
      throw new Error(`${what} exited (${started.child.exitCode ?? started.child.signalCode}) before it was ready:\n${started.log().slice(-4000)}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${seconds} s:\n${started.log().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const stopChild = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });

/** Starts etcd and the API server on free ports (etcd's client port may be asked for); tries new ports when one is taken. */
export async function startControlPlane(options: { etcdPort?: number } = {}): Promise<ControlPlane> {
  sweepStale();
  const etcd = testTool("etcd");
  const apiserver = testTool("kube-apiserver");
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
    try {
      return await startIn(dir, etcd, apiserver, attempt === 0 ? options.etcdPort : undefined);
    } catch (error) {
      last = error;
      rmSync(dir, { recursive: true, force: true });
      if (!/address already in use/.test(String(error))) break;
      console.error(`control plane: a port was taken (${String(error).split("\n")[0]}); trying other ports`);
    }
  }
  throw last;
}

async function startIn(dir: string, etcdBinary: string, apiserverBinary: string, etcdPort?: number): Promise<ControlPlane> {
  await makeCertificates(dir);
  const tokens = Object.entries(IDENTITIES).map(([name, id]) => ({ name, token: randomBytes(24).toString("hex"), ...id }));
  writeFileSync(join(dir, "tokens.csv"), `${tokens.map((t) => `${t.token},${t.user},uid-${t.user},"${t.groups.join(",")}"`).join("\n")}\n`);
  const tokenOf = Object.fromEntries(tokens.map((t) => [t.name, t.token])) as Record<keyof typeof IDENTITIES, string>;
  const [client, peer, secure] = [etcdPort ?? (await freePort()), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const killAll = () => children.forEach((c) => c.kill("SIGKILL"));
  process.once("exit", killAll);
  const etcd = startProcess(dir, "etcd", etcdBinary, [
    "--name=default",
    `--data-dir=${join(dir, "etcd")}`,
    `--listen-client-urls=http://127.0.0.1:${client}`,
    `--advertise-client-urls=http://127.0.0.1:${client}`,
    `--listen-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
    `--initial-cluster=default=http://127.0.0.1:${peer}`,
    "--unsafe-no-fsync",
    "--log-level=warn",
  ]);
  children.push(etcd.child);
  const server = `https://127.0.0.1:${secure}`;
  const caFile = join(dir, "ca.crt");
  const ca = readFileSync(caFile);
  const api: ControlPlane["api"] = (method, path, body, as = { identity: "admin" }, contentType) =>
    call({ server, ca, method, path, body, contentType, token: as.anonymous ? undefined : tokenOf[as.identity ?? "admin"], as });
  try {
    await waitFor("etcd", etcd, async () => (await fetch(`http://127.0.0.1:${client}/health`, { signal: AbortSignal.timeout(2000) })).ok, 60);
    const apiserver = startProcess(dir, "kube-apiserver", apiserverBinary, [
      `--etcd-servers=http://127.0.0.1:${client}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${secure}`,
      `--tls-cert-file=${join(dir, "serving.crt")}`,
      `--tls-private-key-file=${join(dir, "serving.key")}`,
      `--service-account-issuer=${ISSUER}`,
      `--service-account-key-file=${join(dir, "sa.pub")}`,
      `--service-account-signing-key-file=${join(dir, "sa.key")}`,
      `--token-auth-file=${join(dir, "tokens.csv")}`,
      "--authorization-mode=RBAC",
      "--allow-privileged=true",
      "--service-cluster-ip-range=10.96.0.0/12",
      "--endpoint-reconciler-type=none",
      "--enable-priority-and-fairness=false",
      "--profiling=false",
    ]);
    children.push(apiserver.child);
    await waitFor("kube-apiserver", apiserver, async () => (await api("GET", "/readyz")).status === 200, 180);
  } catch (error) {
    killAll();
    throw error;
  }
  const kubeconfig = writeKubeconfig(dir, server, caFile, tokenOf.admin);
  try {
    await bindEveryone(api);
  } catch (error) {
    killAll();
    throw error;
  }
  return {
    server,
    caFile,
    kubeconfig,
    dir,
    api,
    kubectl: (args, input) => run("kubectl", [`--kubeconfig=${kubeconfig}`, ...args], { input }),
    stop: async () => {
      process.removeListener("exit", killAll);
      for (const child of [...children].reverse()) await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function writeKubeconfig(dir: string, server: string, caFile: string, token: string): string {
  const kubeconfig = join(dir, "kubeconfig");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "test", cluster: { server, "certificate-authority": caFile } }],
    users: [{ name: "admin", user: { token } }],
    contexts: [{ name: "test", context: { cluster: "test", user: "admin" } }],
    "current-context": "test",
  };
  writeFileSync(kubeconfig, JSON.stringify(config));
  return kubeconfig;
}

/** Every authenticated identity may do anything RBAC governs, so admission alone decides what the tests ask. */
async function bindEveryone(api: ControlPlane["api"]): Promise<void> {
  const binding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "test-authenticated-cluster-admin" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:authenticated" }],
  };
  const bound = await api("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding);
  if (bound.status !== 201) throw new Error(`binding cluster-admin: ${bound.status} ${bound.text}`);
}

interface Call {
  server: string;
  ca: Buffer;
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  token?: string;
  as: As;
}

function call(c: Call): Promise<Reply> {
  const headers: Record<string, string | string[]> = { Accept: "application/json, */*" };
  if (c.token) headers.Authorization = `Bearer ${c.token}`;
  if (c.as.user) {
    headers["Impersonate-User"] = c.as.user;
    if (c.as.groups?.length) headers["Impersonate-Group"] = [...c.as.groups];
  }
  const payload = c.body === undefined ? undefined : typeof c.body === "string" ? c.body : JSON.stringify(c.body);
  if (payload !== undefined) headers["Content-Type"] = c.contentType ?? "application/json";
  return new Promise((resolve, reject) => {
    const req = request(`${c.server}${c.path}`, { method: c.method, ca: c.ca, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => void (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, json: () => JSON.parse(text) }));
    });
    req.on("error", reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`${c.method} ${c.path}: no answer in 60 s`)));
    req.end(payload);
  });
}
