// Renders the Server and the Runner of one kind: Compass file; pure.
import type { K8sObject } from "../../k8s/objects.ts";
import { renderCompassRunner } from "../compass-runner/render.ts";
import { renderServer } from "../compass-server/render.ts";
import { clusterOf, runnerOf, serverOf, type CompassValues } from "./values.ts";

export function renderCompass(v: CompassValues): K8sObject[] {
  return [...renderServer(serverOf(v), [clusterOf(v)]), ...renderCompassRunner(runnerOf(v))];
}
