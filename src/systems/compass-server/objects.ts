// The Server's objects in a set beside the Compass contract's (the Server, its
// containers and --runner-clusters files): its bundled NATS, pods and Services.
import type { PodSpec } from "kubernetes-types/core/v1";
import { dig, isRecord, list } from "../../k8s/access.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { selectsLabels } from "../../k8s/selector.ts";
import type { ObjectSet, PodRef } from "../../rules/engine.ts";
import { containersOf } from "../../rules/shapes.ts";
import { podLabels } from "../../rules/templates.ts";
import { appOf, isServer, podSpecOf } from "../compass-contract/server-objects.ts";
import { NATS_APP, SERVER_APP } from "../compass-contract/ports.ts";

const NAME_LABEL = "app.kubernetes.io/name";

/** Whether a pod runs nats-server: its command, or an image named nats. */
function runsNats(spec: PodSpec): boolean {
  return containersOf(spec).some((c) => {
    const command = list<unknown>(c.command);
    if (command.length > 0) return /(^|\/)nats-server$/.test(String(command[0]));
    return /^(nats|nats-server)$/.test(
      String(c.image ?? "")
        .split(/[@:]/)[0]
        .split("/")
        .pop() ?? "",
    );
  });
}

/** The bundled NATS: labelled so, or an unlabelled workload that runs nats-server (and is not the Server). */
export function isNats(o: K8sObject): boolean {
  const app = appOf(o);
  if (app === SERVER_APP || app === NATS_APP) return app === NATS_APP;
  const spec = podSpecOf(o);
  return spec !== undefined && runsNats(spec) && !isServer(o);
}

export function serverPods(set: ObjectSet): PodRef[] {
  return set.pods().filter((p) => isServer(p.object));
}

/** The Services in front of the Server: labelled so, or selecting a Server pod in their namespace. */
export function serverServices(set: ObjectSet): K8sObject[] {
  const pods = serverPods(set);
  return set.ofKind("Service").filter((service) => {
    if (service.metadata?.labels?.[NAME_LABEL] === SERVER_APP) return true;
    const selector = dig(service, ["spec", "selector"]);
    // A Service selector is a plain label map; an empty one selects no pod.
    if (!isRecord(selector) || Object.keys(selector).length === 0) return false;
    return pods.some(
      (p) => (p.object.metadata?.namespace ?? "") === (service.metadata?.namespace ?? "") && selectsLabels({ matchLabels: selector }, podLabels(p.object)),
    );
  });
}
