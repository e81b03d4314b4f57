// The JetStream memory store lives in nats-server's own memory, so it must fit
// below the NATS container's memory limit (CS-13): values and `check` ask alike.
import { compareQuantity, parseQuantity, type Quantity } from "../../k8s/quantity.ts";

const MiB = 1048576n;

/** Why a full memory store is fatal, as both refusals say it. */
export const MEMORY_STORE_WHY =
  "JetStream keeps its memory store in the NATS container's memory, beside nats-server itself, so a store that reaches the limit gets NATS OOM-killed";

/** A size in bytes, written in MiB when it is a whole number of them. */
export function sizeText(bytes: bigint): string {
  return bytes % MiB === 0n ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}

/** Whether a store of `storeBytes` reaches the memory limit (at or above it, by value); false when it sets no store or `limit` is no quantity. */
export function reachesLimit(storeBytes: bigint, limit: unknown): boolean {
  const quantity = parseQuantity(limit);
  if (quantity === undefined || storeBytes <= 0n) return false;
  const store: Quantity = { mantissa: storeBytes, exponent: 0, format: "BinarySI", form: "int64" };
  return compareQuantity(store, quantity) >= 0;
}
