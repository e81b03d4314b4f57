// What client libraries print on their own is held during a preflight, so
// nothing reaches a stream before secrets are removed.
import { format } from "node:util";

/** What is kept of what libraries print: whole messages only, so that no secret is ever cut in two. */
const KEPT_BYTES = 1024 * 1024;
const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug", "trace", "dir", "table"] as const;

type ConsoleMethod = (typeof CONSOLE_METHODS)[number];

export class LibraryOutput {
  private readonly kept: string[] = [];
  private keptBytes = 0;
  private dropped = 0;
  private readonly errorListeners = new Set<(error: Error) => void>();
  private restore: (() => void) | undefined;

  /** Holds what libraries print from now on, until stop(). */
  start(): this {
    const saved = new Map<ConsoleMethod, unknown>(CONSOLE_METHODS.map((name) => [name, console[name]]));
    for (const name of CONSOLE_METHODS) (console as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => this.console(args);
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error) => this.keep(typeof warning === "string" ? warning : warning.message)) as typeof process.emitWarning;
    const streams = [process.stdout, process.stderr].map((stream) => [stream, stream.write] as const);
    for (const [stream] of streams)
      stream.write = ((chunk: string | Uint8Array) => (
        this.keep(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")), true
      )) as typeof stream.write;
    this.restore = () => {
      for (const [name, method] of saved) (console as unknown as Record<string, unknown>)[name] = method;
      process.emitWarning = emitWarning;
      for (const [stream, write] of streams) stream.write = write;
    };
    return this;
  }

  stop(): void {
    this.restore?.();
    this.restore = undefined;
  }

  /** `listener` hears each Error a library logs: the NATS client's way of saying its reader died. */
  onError(listener: (error: Error) => void): () => void {
    this.errorListeners.add(listener);
    return () => void this.errorListeners.delete(listener);
  }

  /** What was printed, one entry a message, for the redactor to pass before any of it is shown. */
  messages(): string[] {
    return this.dropped ? [...this.kept, `(${this.dropped} more message(s) left out)`] : [...this.kept];
  }

  private console(args: unknown[]): void {
    // An error is kept by its message: a stack trace is for rigging's developers, and holds the server's bytes.
    this.keep(format(...args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : arg))));
    for (const arg of args) if (arg instanceof Error) for (const listener of this.errorListeners) listener(arg);
  }

  private keep(text: string): void {
    const message = text.replace(/\n+$/, "");
    if (!message) return;
    if (this.keptBytes + message.length > KEPT_BYTES) this.dropped++;
    else this.kept.push(message), (this.keptBytes += message.length);
  }
}
