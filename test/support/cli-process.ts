// Runs the built CLI (dist/rigging.mjs) as its own process, the way users
// and CI do. The bundle is rebuilt once per test file so that it is current.
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLI = join(ROOT, "dist", "rigging.mjs");

export function buildCli(): void {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { cwd: ROOT, stdio: "inherit" });
}

export function runCli(args: string[], input?: string | Buffer) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } });
  return { code: result.status, out: result.stdout, err: result.stderr, signal: result.signal };
}
