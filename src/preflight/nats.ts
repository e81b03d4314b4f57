// D5 against a live NATS: password auth (CS-07) and JetStream (CS-13).
import type { NatsConnection } from "@nats-io/transport-node";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";
import type { LibraryOutput } from "./capture.ts";
import type { CheckResult, Deadline } from "./common.ts";

export interface NatsTarget {
  url: URL;
  user: string;
  password: string;
  /** PEM CA for a tls:// URL; the system's roots without it. */
  ca?: string;
}

/** The client can wait forever on a silent server and reports garbage only on the console, so its sockets are tracked and a console report fails the step. */
export async function checkNats(target: NatsTarget, deadline: Deadline, output?: LibraryOutput): Promise<CheckResult[]> {
  const sockets = new Set<Socket>();
  const track = (message: unknown) => void sockets.add((message as { socket: Socket }).socket);
  const release = () => sockets.forEach((socket) => socket.destroy());
  let broken: (error: Error) => void = () => {};
  const readerDied = new Promise<never>((_, reject) => (broken = reject));
  readerDied.catch(() => {});
  const unlisten = output?.onError((error) => broken(new Error(`the server's answer is not NATS protocol: ${error.message}`)));
  const step = <T>(work: Promise<T>) => deadline.race(Promise.race([work, readerDied]), release);
  subscribe("net.client.socket", track);
  try {
    return await judgeNats(target, deadline, step);
  } finally {
    unlisten?.();
    unsubscribe("net.client.socket", track);
    release();
  }
}

type Step = <T>(work: Promise<T>) => Promise<T>;

async function judgeNats(target: NatsTarget, deadline: Deadline, step: Step): Promise<CheckResult[]> {
  const { connect, AuthorizationError } = await import("@nats-io/transport-node");
  const { jetstreamManager } = await import("@nats-io/jetstream");
  const dial = (credentials: { user: string; pass: string } | undefined) =>
    step(
      connect({
        servers: target.url.href,
        ...credentials,
        name: "rigging preflight",
        timeout: deadline.remainingMs(),
        reconnect: false,
        maxReconnectAttempts: 0,
        ignoreClusterUpdates: true,
        ...(target.url.protocol === "tls:" ? { tls: target.ca ? { ca: target.ca } : {} } : {}),
      }),
    );
  const close = (nc: NatsConnection) => step(nc.close()).catch(() => {});
  const refused = (error: unknown) => error instanceof AuthorizationError;
  const results: CheckResult[] = [];

  const anonymous = await dial(undefined).catch((error: unknown) => (refused(error) ? undefined : Promise.reject(error)));
  if (anonymous) {
    await close(anonymous);
    results.push({
      id: "CS-07",
      check: "anonymous access",
      outcome: "fail",
      message: "NATS accepts a client without credentials",
      fix: "require password auth (D5): an authorization block with the Server's user and a password from a Secret, and no no_auth_user",
    });
  } else {
    results.push({ id: "CS-07", check: "anonymous access", outcome: "pass", message: "NATS refuses a client without credentials" });
  }

  const user = target.user;
  const nc = await dial({ user, pass: target.password }).catch((error: unknown) => (refused(error) ? undefined : Promise.reject(error)));
  if (!nc) {
    results.push({
      id: "CS-07",
      check: "password",
      outcome: "fail",
      message: `NATS refuses user ${user} with the password given (JetStream is checked once it is taken)`,
      fix: "give the password of the Secret the Server reads (nats.passwordSecret), and the user of nats.user",
    });
    return results;
  }
  results.push({ id: "CS-07", check: "password", outcome: "pass", message: `NATS takes user ${user} with the password given` });

  try {
    const jsm = await step(jetstreamManager(nc, { timeout: deadline.remainingMs() }));
    const info = await step(jsm.getAccountInfo());
    results.push({ id: "CS-13", check: "JetStream", outcome: "pass", message: `JetStream is enabled for user ${user} (${info.streams} stream(s))` });
  } catch (error) {
    if (!jetStreamMissing(error)) throw error;
    results.push({
      id: "CS-13",
      check: "JetStream",
      outcome: "fail",
      message: `JetStream is not enabled for user ${user}: the Server's event fabric needs it`,
      fix: "enable JetStream on the NATS server (jetstream {} in its configuration, or -js) and for the Server's account",
    });
  } finally {
    await close(nc);
  }
  return results;
}

function jetStreamMissing(error: unknown): boolean {
  const e = error as { name?: string; code?: number; message?: string };
  return e?.name === "JetStreamNotEnabled" || e?.code === 10039 || /jetstream (is )?not enabled/i.test(e?.message ?? "");
}
