// What the tests need that `npm ci` does not install: the pinned Kubernetes
// clients that check-generated regenerates kube-schemas/ from, and what the
// live tests start (registry, NATS, PostgreSQL, openssl, zsh, fish, strace):
// installed as root on Debian, else the apt-get line is printed, so no live
// test is skipped.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const PG15 = "/usr/lib/postgresql/15/bin";

if (!existsSync("scripts/kube-specs/node_modules")) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["ci", "--prefix", "scripts/kube-specs", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`test-deps: npm ci --prefix scripts/kube-specs failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

/** An executable on PATH, or in the extra directories (Debian puts nats-server in /usr/sbin). */
function onPath(name, extra = []) {
  return [...(process.env.PATH ?? "").split(":"), ...extra].some((dir) => dir && existsSync(join(dir, name)));
}

const NEEDS = [
  { what: "docker-registry", pkg: "docker-registry", present: () => onPath("docker-registry") },
  { what: "nats-server", pkg: "nats-server", present: () => onPath("nats-server", ["/usr/sbin"]) },
  { what: "PostgreSQL 15", pkg: "postgresql-15", present: () => existsSync(join(PG15, "initdb")) && existsSync(join(PG15, "pg_ctl")) },
  { what: "openssl", pkg: "openssl", present: () => onPath("openssl") },
  { what: "zsh", pkg: "zsh", present: () => onPath("zsh") },
  { what: "fish", pkg: "fish", present: () => onPath("fish") },
  { what: "strace", pkg: "strace", present: () => onPath("strace") },
];

const missing = () => NEEDS.filter((need) => !need.present());
const first = missing();
if (first.length === 0) process.exit(0);

const packages = first.map((need) => need.pkg);
const names = first.map((need) => need.what).join(", ");
const asRoot = process.getuid?.() === 0;
const debian = existsSync("/etc/debian_version") && onPath("apt-get");

if (!asRoot || !debian) {
  console.error(`The live tests start ${names}, which npm does not ship. Install ${first.length === 1 ? "it" : "them"}, then run npm test again:`);
  console.error(`  ${asRoot ? "" : "sudo "}apt-get install -y --no-install-recommends ${packages.join(" ")}`);
  if (!debian) console.error("(these are Debian's packages: on another system, install the same programs, or run the tests on Debian)");
  process.exit(1);
}

console.error(`test-deps: installing ${names} (apt-get install ${packages.join(" ")})`);
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
apt(["install", "-y", "-qq", "--no-install-recommends", ...packages]);
const still = missing();
if (still.length > 0) {
  console.error(`test-deps: still missing after the install: ${still.map((need) => need.what).join(", ")}`);
  process.exit(1);
}
