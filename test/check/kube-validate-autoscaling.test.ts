// A HorizontalPodAutoscaler as kube-apiserver validates it on create: an object it accepts and one it
// refuses for each check, and the releases that judge the scale target's apiVersion.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const metric = { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } };
const hpa = (spec: Obj = {}, apiVersion = "autoscaling/v2"): Obj => ({
  apiVersion,
  kind: "HorizontalPodAutoscaler",
  metadata: { name: "web" },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 2, maxReplicas: 10, metrics: [metric], ...spec },
});
const withMetric = (m: Obj) => hpa({ metrics: [m] });
const scaleDown = (rules: Obj) => hpa({ behavior: { scaleDown: rules } });

describe("replicas and the scale target", () => {
  it("keeps minReplicas at least 1 and maxReplicas at least minReplicas", () => {
    accepts(hpa());
    refuses(hpa({ minReplicas: 0 }), "spec.minReplicas", "it must be at least 1");
    refuses(hpa({ maxReplicas: 1 }), "spec.maxReplicas", "is below minReplicas 2");
    refuses(hpa({ maxReplicas: 0 }), "spec.maxReplicas", "it must be at least 1");
  });

  it("names the scale target as path segments, with an API group from 1.34", () => {
    refuses(hpa({ scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web/x" } }), "spec.scaleTargetRef.name", "is not a valid name");
    refuses(hpa({ scaleTargetRef: { apiVersion: "v1", kind: "ReplicationController", name: "web" } }), "spec.scaleTargetRef.apiVersion", "names no API group");
    refuses(hpa({ scaleTargetRef: { apiVersion: "apps/v1/x", kind: "Deployment", name: "web" } }), "spec.scaleTargetRef.apiVersion", "more than one '/'");
    accepts(hpa({ scaleTargetRef: { apiVersion: "v1", kind: "ReplicationController", name: "web" } }), "1.33");
  });

  it("judges autoscaling/v1's CPU target", () => {
    accepts(hpa({ metrics: undefined, targetCPUUtilizationPercentage: 80 }, "autoscaling/v1"));
    refuses(hpa({ metrics: undefined, targetCPUUtilizationPercentage: 0 }, "autoscaling/v1"), "spec.targetCPUUtilizationPercentage", "greater than 0");
  });
});

describe("metrics (validateMetricSpec)", () => {
  it("set the source of their type, and that one alone", () => {
    refuses(withMetric({ ...metric, type: "Pods" }), "spec.metrics.0.pods", "needs its pods source");
    refuses(
      withMetric({ ...metric, pods: { metric: { name: "rps" }, target: { type: "AverageValue", averageValue: "1" } } }),
      "spec.metrics.0.pods",
      "sets its resource source only",
    );
  });

  it("give a target the source takes", () => {
    refuses(
      withMetric({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization" } } }),
      "spec.metrics.0.resource.target.averageUtilization",
      "needs an",
    );
    refuses(
      withMetric({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 0 } } }),
      "spec.metrics.0.resource.target.averageUtilization",
      "greater than 0",
    );
    refuses(
      withMetric({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50, averageValue: "1" } } }),
      "spec.metrics.0.resource.target.averageValue",
      "not both",
    );
    refuses(
      withMetric({ type: "Pods", pods: { metric: { name: "rps" }, target: { type: "Value", value: "10" } } }),
      "spec.metrics.0.pods.target.averageValue",
      "needs an averageValue",
    );
    refuses(
      withMetric({ type: "External", external: { metric: { name: "queue" }, target: { type: "Value", value: "-1" } } }),
      "spec.metrics.0.external.target.value",
      "must be positive",
    );
    refuses(
      withMetric({
        type: "Object",
        object: { metric: { name: "a/b" }, describedObject: { kind: "Service", name: "web" }, target: { type: "Value", value: "1" } },
      }),
      "spec.metrics.0.object.metric.name",
      "not a valid metric name",
    );
    accepts(
      withMetric({
        type: "Object",
        object: { metric: { name: "rps" }, describedObject: { apiVersion: "v1", kind: "Service", name: "web" }, target: { type: "Value", value: "1" } },
      }),
    );
  });

  it("are not judged in autoscaling/v2beta1, which writes its targets elsewhere", () => {
    accepts(hpa({ metrics: [{ type: "Resource", resource: { name: "cpu", targetAverageUtilization: 70 } }] }, "autoscaling/v2beta1"), "1.24");
  });
});

describe("scaling behaviour (validateScalingRules)", () => {
  it("keeps windows and periods in range, with at least one positive policy", () => {
    accepts(scaleDown({ stabilizationWindowSeconds: 300, policies: [{ type: "Percent", value: 50, periodSeconds: 60 }] }));
    refuses(scaleDown({ policies: [] }), "spec.behavior.scaleDown.policies", "at least one policy");
    refuses(
      scaleDown({ stabilizationWindowSeconds: 3601, policies: [{ type: "Pods", value: 1, periodSeconds: 60 }] }),
      "spec.behavior.scaleDown.stabilizationWindowSeconds",
      "outside 0-3600",
    );
    refuses(scaleDown({ policies: [{ type: "Pods", value: 0, periodSeconds: 60 }] }), "spec.behavior.scaleDown.policies.0.value", "greater than zero");
    refuses(scaleDown({ policies: [{ type: "Pods", value: 1, periodSeconds: 1801 }] }), "spec.behavior.scaleDown.policies.0.periodSeconds", "outside 1-1800");
  });
});
