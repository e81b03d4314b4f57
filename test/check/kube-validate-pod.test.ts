// A container's image as kube-apiserver validates it: required in a Pod and in a pod template alike,
// and, in a Pod (from 1.29), without white space around it.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const pod = (image: unknown): Obj => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [{ name: "web", image }] } });
const deployment = (image: unknown): Obj => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image }] } } },
});

describe("a container's image (validateContainerCommon, validateContainerOnlyForPod)", () => {
  it("is required in a Pod and in a template", () => {
    accepts(pod("nginx:1.27"));
    refuses(pod(""), "spec.containers.0.image", "needs an image");
    refuses(pod(undefined), "spec.containers.0.image", "needs an image");
    refuses(deployment(""), "spec.template.spec.containers.0.image", "needs an image");
  });

  it("has no white space around it in a Pod from 1.29; a template keeps it", () => {
    refuses(pod(" nginx:1.27"), "spec.containers.0.image", "white space around it");
    refuses(pod("nginx:1.27\t"), "spec.containers.0.image", "white space around it");
    accepts(pod(" nginx:1.27"), "1.24");
    accepts(deployment(" nginx:1.27"));
  });
});
