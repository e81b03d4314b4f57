// How the Server rules read a container's settings and point at them, shared by the rule files of this folder.
import type { Container, Volume } from "kubernetes-types/core/v1";
import { flagOrEnv, givenFlags, type FlagOrEnv } from "../../k8s/flag-or-env.ts";
import { hit, type ContainerRef, type RuleHit } from "../../rules/engine.ts";
import { SERVER_TLS_PORT } from "../compass-contract/ports.ts";
import { SERVER_INTERFACE as F } from "./interface.ts";
import { isSecretVolume, listenPort, settingPath, valueNotShown } from "./settings.ts";
import { mountOver } from "../compass-contract/mounts.ts";
import { SERVER_READING } from "../compass-contract/server-interface.ts";

/** The port the Server's TLS door listens on, from --listen (8443 when it has no port); undefined when the input cannot show it. */
export function tlsPortOf(container: Container): number | undefined {
  const listen = flagOrEnv(container, F.listen, SERVER_READING);
  if (valueNotShown(listen)) return undefined;
  return (listen?.value && listenPort(listen.value)) || SERVER_TLS_PORT;
}

/** Checks that a file flag names a file of a Secret volume; returns its volume. */
export function secretFileFlag(ref: ContainerRef, flag: string, what: string, hits: RuleHit[]): { volume: Volume; rest: string; index: number } | undefined {
  const { object, container, containerPath, spec } = ref;
  const given = givenFlags(container, SERVER_READING)
    .filter((f) => f.flag === flag)
    .pop();
  if (!given || given.value === "") {
    hits.push(hit(object, [...containerPath, "args"], `no ${flag} argument: ${what} is not read from a file`));
    return undefined;
  }
  const found = mountOver(spec, container, given.value);
  if (!isSecretVolume(found.volume)) {
    hits.push(hit(object, [...containerPath, ...given.path], `${flag} ${given.value} is not a file of a Secret volume`));
    return undefined;
  }
  return { volume: found.volume!, rest: found.rest, index: found.index };
}

/** A finding's path for a resolved setting, or the container's `where` when there is none. */
export function at(ref: ContainerRef, r: FlagOrEnv | undefined, where: string): PropertyKey[] {
  return [...ref.containerPath, ...(r ? settingPath(r) : [where])];
}
