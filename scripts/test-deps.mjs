// What the tests need that `npm ci` does not install: the pinned Kubernetes
// clients that check-generated regenerates kube-schemas/ from, and the
// programs the live tests start. Each is named with the tests that need it.
//   node scripts/test-deps.mjs           install what is missing (npm run test:deps; Debian packages as root)
//   node scripts/test-deps.mjs --check   install nothing: name what is missing and how to install it, exit 1
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const PG15 = "/usr/lib/postgresql/15/bin";
const KUBE_SPECS = "scripts/kube-specs";
const check = process.argv.includes("--check");

/** An executable on PATH, or in the extra directories (Debian puts nats-server in /usr/sbin). */
function onPath(name, extra = []) {
  return [...(process.env.PATH ?? "").split(":"), ...extra].some((dir) => dir && existsSync(join(dir, name)));
}

const NEEDS = [
  { what: "docker-registry", pkg: "docker-registry", why: "the registry pin's tests ask for digests", present: () => onPath("docker-registry") },
  {
    what: "nats-server",
    pkg: "nats-server",
    why: "the NATS that preflight nats and the bundled NATS's tests start",
    present: () => onPath("nats-server", ["/usr/sbin"]),
  },
  {
    what: "PostgreSQL 15",
    pkg: "postgresql-15",
    why: "the database preflight postgres's tests start",
    present: () => existsSync(join(PG15, "initdb")) && existsSync(join(PG15, "pg_ctl")),
  },
  { what: "openssl", pkg: "openssl", why: "the certificates the preflight tls, diff and values tests make", present: () => onPath("openssl") },
  { what: "zsh", pkg: "zsh", why: "the shell completion tests", present: () => onPath("zsh") },
  { what: "fish", pkg: "fish", why: "the shell completion tests", present: () => onPath("fish") },
  {
    what: "strace",
    pkg: "strace",
    why: "the tests that trace a render (a kill before each write; kustomize the only program started)",
    present: () => onPath("strace"),
  },
];

const missing = () => NEEDS.filter((need) => !need.present());
const specsMissing = !existsSync(join(KUBE_SPECS, "node_modules"));
const first = missing();
const asRoot = process.getuid?.() === 0;
const debian = existsSync("/etc/debian_version") && onPath("apt-get");
const aptLine = (needs) => `${asRoot ? "" : "sudo "}apt-get install -y --no-install-recommends ${needs.map((need) => need.pkg).join(" ")}`;
const listed = (needs) => needs.map((need) => `  ${need.what}: ${need.why}`).join("\n");

if (check) {
  if (!specsMissing && first.length === 0) process.exit(0);
  console.error("The tests need what `npm ci` does not install:");
  if (specsMissing) console.error(`  ${KUBE_SPECS}/node_modules: the Kubernetes clients check-generated reads kube-schemas/ from`);
  if (first.length > 0) console.error(listed(first));
  console.error(`Install ${specsMissing && first.length === 0 ? "it" : "them"} with \`npm run test:deps\` (as root on Debian), or:`);
  if (specsMissing) console.error(`  npm ci --prefix ${KUBE_SPECS} --no-audit --no-fund --ignore-scripts`);
  if (first.length > 0) console.error(`  ${aptLine(first)}`);
  process.exit(1);
}

if (specsMissing) {
  console.error(`test-deps: installing ${KUBE_SPECS}/node_modules, the Kubernetes clients check-generated reads kube-schemas/ from`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["ci", "--prefix", KUBE_SPECS, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`test-deps: npm ci --prefix ${KUBE_SPECS} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

if (first.length === 0) {
  console.error(`test-deps: ${NEEDS.map((need) => need.what).join(", ")} are installed`);
  process.exit(0);
}

if (!asRoot || !debian) {
  console.error(`The live tests start programs npm does not ship:\n${listed(first)}\nInstall them, then run npm test:`);
  console.error(`  ${aptLine(first)}`);
  if (!debian) console.error("(these are Debian's packages: on another system, install the same programs, or run the tests on Debian)");
  process.exit(1);
}

console.error(`test-deps: installing with apt-get install ${first.map((need) => need.pkg).join(" ")}:\n${listed(first)}`);
const apt = (args) => {
  // Waits for another apt run's lock instead of failing at once.
  const r = spawnSync("apt-get", ["-o", "DPkg::Lock::Timeout=300", ...args], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (r.status !== 0) {
    console.error(`test-deps: apt-get ${args.join(" ")} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
};
apt(["update", "-qq"]);
apt(["install", "-y", "-qq", "--no-install-recommends", ...first.map((need) => need.pkg)]);
const still = missing();
if (still.length > 0) {
  console.error(`test-deps: still missing after the install: ${still.map((need) => need.what).join(", ")}`);
  process.exit(1);
}
