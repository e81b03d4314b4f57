// Debian's nats-server on 127.0.0.1 for the preflight tests, with or without
// password auth and JetStream, on a port it picks itself (read back from
// its log). `npm run test:deps` installs the package (scripts/test-deps.mjs).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./cli.ts";

export interface TestNats {
  url: string;
  stop(): Promise<void>;
}

/** Debian puts nats-server in /usr/sbin, which a user's PATH may lack. */
export function natsServerBinary(): string {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/sbin", "/usr/bin"])) {
    if (dir && existsSync(join(dir, "nats-server"))) return join(dir, "nats-server");
  }
  throw new Error("nats-server not found: npm run test:deps installs it, or run apt-get install nats-server");
}

export function startNats(options: { auth?: { user: string; password: string }; jetstream: boolean }): Promise<TestNats> {
  const dir = tempDir();
  const args = ["-a", "127.0.0.1", "-p", "-1"];
  if (options.jetstream) args.push("-js", "-sd", join(dir, "js"));
  if (options.auth) {
    writeFileSync(
      join(dir, "nats.conf"),
      `authorization {\n  user: ${JSON.stringify(options.auth.user)}\n  password: ${JSON.stringify(options.auth.password)}\n}\n`,
    );
    args.push("-c", join(dir, "nats.conf"));
  }
  const child: ChildProcess = spawn(natsServerBinary(), args, { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let log = "";
    const fail = (why: string) => reject(new Error(`nats-server ${why}: ${log}`));
    child.on("error", (error) => fail(error.message));
    child.on("exit", (code) => fail(`exited ${code}`));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      const listening = /Listening for client connections on (127\.0\.0\.1:\d+)/.exec(log);
      if (!listening || !/Server is ready/.test(log)) return;
      child.removeAllListeners("exit");
      child.stderr!.removeAllListeners("data").resume();
      resolve({
        url: `nats://${listening[1]}`,
        stop: () =>
          new Promise<void>((done) => {
            child.once("exit", () => (rmSync(dir, { recursive: true, force: true }), done()));
            child.kill("SIGTERM");
          }),
      });
    });
  });
}
