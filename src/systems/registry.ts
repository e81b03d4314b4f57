// The registry of systems, one line each: every command reads the systems from here, and passes them to the rules.
import type { K8sObject } from "../k8s/objects.ts";
import { Catalog } from "../rules/catalog.ts";
import type { JudgedSystem } from "../rules/judged-system.ts";
import type { Shape } from "../rules/shapes.ts";
import type { SystemConsequences } from "./consequences.ts";
import { compassKind } from "./compass/kind.ts";
import { compassRunnerSystem } from "./compass-runner/system.ts";
import { compassServerSystem } from "./compass-server/system.ts";
import { rootpilotRunnerSystem } from "./rootpilot-runner/system.ts";
import type { ValuesKind } from "./values-kind.ts";

export type { PodSecurityLevel, SystemName } from "../rules/judged-system.ts";
export type { Shape };

/** D10: the platforms an image must hold, which `pin` checks its digest against. */
export interface ImageNeed {
  /** Whose image it is, in messages: `the Compass Server`. */
  who: string;
  platforms: readonly string[];
  /** Whether it must be an image index (one tag for every platform). */
  index: boolean;
  /** Why it needs them, in pin's messages. */
  why: string;
}

/** One name of a program's interface, as its interface file describes it (the docs' interface tables). */
export interface InterfaceRow {
  flag?: string;
  env?: string;
  meaning: string;
  source: string;
  status: "implemented" | "designed";
  rendered?: string;
  /** For a designed row: the Compass Server-on-Kubernetes design's task it needs. */
  task?: string;
}

/** One record per system: what the rules judge (JudgedSystem) and what commands, docs and the build need. */
export interface System extends JudgedSystem {
  summary: string;
  /** How an unlabelled workload of the system is recognised, by what its pod reads or runs. */
  shapes: readonly Shape[];
  /** Whether an object names no workload of the system yet serves it (an issuer-discovery ClusterRoleBinding): `check` places it in the system's set when the input holds one of its workloads. */
  claims?(object: K8sObject, objects: readonly K8sObject[]): boolean;
  /** Its values kinds: each with its schema, renderer, notes and bundled example. */
  valuesKinds: readonly ValuesKind[];
  /** What `pin` asks of its own image (D10). */
  image: ImageNeed;
  /** Images of other programs it runs beside its own, by a key on their values path (`nats`). */
  bundledImages?: Readonly<Record<string, ImageNeed>>;
  /** Its programs' interface tables in the docs, by the name a page marks them with. */
  interfaces?: Readonly<Record<string, () => readonly InterfaceRow[]>>;
  /** Values files the build renders so that its code is cached; its values kinds' examples when unset. */
  warmUps?: readonly string[];
  /** What `diff` says a change to its objects does, beside diff's own consequences (src/systems/consequences.ts). */
  consequences?: SystemConsequences;
}

/** A record with more values kinds; its getters stay getters, so its chunk still loads on first use. */
function withKinds(system: System, ...more: ValuesKind[]): System {
  const descriptors = Object.getOwnPropertyDescriptors(system);
  return Object.defineProperties({}, { ...descriptors, valuesKinds: { value: [...system.valuesKinds, ...more], enumerable: true } }) as System;
}

// The combined `kind: Compass` renders the Server and its Runner; it is listed with the Server's kinds.
const systems: System[] = [compassRunnerSystem, withKinds(compassServerSystem, compassKind), rootpilotRunnerSystem];

/** Every system, in the registry's order. */
export const SYSTEMS: readonly System[] = systems;

/** The rules and requirements of every registered system. */
export const catalog = new Catalog<System>(systems);

/** Adds a system from outside this folder (the tests' fixture system); every lookup sees it from then on. */
export function registerSystem(system: System): void {
  if (systems.includes(system)) return;
  if (systems.some((s) => s.name === system.name)) throw new Error(`a system named ${system.name} is registered already`);
  systems.push(system);
  catalog.forget();
}

export function systemOf(name: string): System {
  return catalog.systemOf(name);
}

/** Every values kind, in the registry's order. */
export function valuesKinds(): ValuesKind[] {
  return systems.flatMap((s) => s.valuesKinds);
}

/** The `kind:` of every values kind. */
export function kinds(): string[] {
  return valuesKinds().map((k) => k.kind);
}

export function valuesKindOf(kind: string): ValuesKind | undefined {
  return valuesKinds().find((k) => k.kind === kind);
}

/** The system a values kind belongs to. */
export function systemOfKind(kind: string): System | undefined {
  return systems.find((s) => s.valuesKinds.some((k) => k.kind === kind));
}
