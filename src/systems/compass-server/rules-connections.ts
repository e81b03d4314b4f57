// Server rules about its connections: the NATS it uses (CS-07) and its TLS door behind a Service (CS-08).
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import { annotationProblems } from "../../k8s/names.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { rule } from "../../rules/requirement-data.ts";
import { isolates, policiesSelecting } from "../../rules/templates.ts";
import { natsRun, natsServerContainers } from "./nats-reading.ts";
import { isNats, serverServices } from "./objects.ts";
import { serverContainers } from "../compass-contract/server-objects.ts";
import { natsIngressHits } from "./rules-network.ts";
import { SERVER_SERVICE_PORT, SERVER_TLS_PORT } from "../compass-contract/ports.ts";
import { CS } from "./requirements.ts";
import { at, secretFileFlag, tlsPortOf } from "./rules-reading.ts";
import { SERVER_INTERFACE as F } from "./interface.ts";
import { fromSecret, listenPort, unseen, valueNotShown } from "./settings.ts";
import { SERVER_READING } from "../compass-contract/server-interface.ts";
import { dig } from "../../k8s/access.ts";

export const connectionRules: Rule[] = [
  rule(CS["CS-07"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        const url = flagOrEnv(ref.container, F.natsUrl, SERVER_READING);
        if (unseen(url)) continue;
        if (!url)
          hits.push(
            hit(
              ref.object,
              [...ref.containerPath, "env"],
              `no NATS URL: neither --nats-url nor ${F.natsUrl.env} is set, and the Server exits ("a NATS URL is required")`,
            ),
          );
        else if (!fromSecret(url)) {
          const bare = url.value !== undefined && !/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(url.value);
          hits.push(
            hit(
              ref.object,
              at(ref, url, "env"),
              bare
                ? `${url.name} carries no password: the Server would connect to NATS without password auth`
                : `${url.name} is not fed from a Secret (secretKeyRef), yet it carries the NATS password`,
            ),
          );
        }
      }
      const natsPods = set.pods().filter((p) => isNats(p.object));
      for (const pod of natsPods) {
        const replicas = dig(pod.object, ["spec", "replicas"]);
        if (replicas !== undefined && replicas !== 1)
          hits.push(hit(pod.object, ["spec", "replicas"], `the bundled NATS has ${JSON.stringify(replicas)} replicas, not 1`));
        const runs = natsServerContainers(pod.spec).map(({ container, index }) => ({ index, run: natsRun(set, pod.spec, container) }));
        for (const { index, run } of runs) {
          const pass = run.flags.pass;
          // Go's flag package: -pass or --pass, `=value` or the next word; only $(VAR) keeps it out of the manifest.
          if (pass?.raw && !/^\$\(\w+\)$/.test(pass.raw))
            hits.push(hit(pod.object, [...pod.path, "containers", index, ...pass.path], `${pass.flag} carries the NATS password inline`));
        }
        // A configuration that does not parse is CS-13's finding; one outside the input is not judged.
        if (runs.every(({ run }) => run.passwordAuth === false && !run.error))
          hits.push(hit(pod.object, pod.path, "the bundled NATS has no password authorization"));
        const policies = policiesSelecting(set, pod).filter((p) => isolates(p, "Ingress"));
        if (policies.length === 0) hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy limits who reaches the bundled NATS"));
        hits.push(...natsIngressHits(set, policies));
      }
      return hits;
    },
  }),
  rule(CS["CS-08"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ingress of set.ofKind("Ingress")) hits.push(hit(ingress, ["kind"], "an Ingress in front of the Server terminates TLS"));
      const containers = serverContainers(set);
      const targets = new Map<string, number>();
      let unknown = false;
      for (const ref of containers) {
        const listen = flagOrEnv(ref.container, F.listen, SERVER_READING);
        if (valueNotShown(listen)) {
          // Not judged: the value may come from outside the input.
        } else if (!listen?.value)
          hits.push(hit(ref.object, [...ref.containerPath, "args"], "no --listen: the Server serves only its Unix socket, and no Runner can enroll"));
        else if (listenPort(listen.value) === undefined) hits.push(hit(ref.object, at(ref, listen, "args"), `--listen ${listen.value} has no port`));
        secretFileFlag(ref, F.tlsCert.flag, "the certificate", hits);
        secretFileFlag(ref, F.tlsKey.flag, "the private key", hits);
        const port = tlsPortOf(ref.container);
        // A --listen the input cannot show leaves the ports not judged.
        if (port === undefined) {
          unknown = true;
          continue;
        }
        if (!(ref.container.ports ?? []).some((p) => p.containerPort === port))
          hits.push(hit(ref.object, [...ref.containerPath, "ports"], `the Server declares no containerPort ${port}, its --listen port`));
        for (const p of ref.container.ports ?? []) if (p.name) targets.set(p.name, p.containerPort);
        targets.set("", port);
      }
      const listenTarget = targets.get("") ?? SERVER_TLS_PORT;
      const services = serverServices(set);
      if (containers.length > 0 && services.length === 0)
        hits.push(hit(containers[0].object, ["metadata", "name"], `no Service exposes the Server on ${SERVER_SERVICE_PORT}`));
      for (const service of services) {
        // Annotations the API server refuses make the Service fail to apply (as render refuses them under this ID).
        for (const { key, message } of annotationProblems(dig(service, ["metadata", "annotations"])))
          hits.push(hit(service, key === undefined ? ["metadata", "annotations"] : ["metadata", "annotations", key], message));
        const ports = (dig(service, ["spec", "ports"]) ?? []) as { port: number; targetPort?: number | string }[];
        ports.forEach((p, i) => {
          const target = typeof p.targetPort === "string" ? targets.get(p.targetPort) : (p.targetPort ?? p.port);
          if (p.port !== SERVER_SERVICE_PORT) hits.push(hit(service, ["spec", "ports", i, "port"], `port ${p.port}, not ${SERVER_SERVICE_PORT}`));
          if (target !== listenTarget && !unknown)
            hits.push(
              hit(
                service,
                ["spec", "ports", i, "targetPort"],
                `targetPort ${JSON.stringify(p.targetPort ?? p.port)} does not reach the Server's TLS port ${listenTarget}`,
              ),
            );
        });
      }
      return hits;
    },
  }),
];
