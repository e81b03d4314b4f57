// esbuild plugins: each chunked module and late Node module replaced by a
// stub that loads it on first read, and zod's locales cut to English.
import { builtinModules, createRequire } from "node:module";
import { join } from "node:path";
import { ALL, sourcePath } from "./chunks.mjs";

const require = createRequire(import.meta.url);

/** zod's locales index, reduced to English (the only one it configures). */
export const englishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: args.path.replace(/[\\/]index\.js$/, ""),
    }));
  },
};

/** A CommonJS stub whose exports load the real module on first read. The getters sit on the prototype so esbuild's `__toESM` copies nothing. */
function lazyStub(names, load) {
  const getters = names.filter((name) => name !== "__esModule").map((name) => `${JSON.stringify(name)}:{enumerable:true,get:()=>m()[${JSON.stringify(name)}]}`);
  const esModule = names.includes("__esModule") ? "__esModule:{value:true}," : "";
  return `let l;const m=()=>l??=${load};module.exports=Object.create(Object.defineProperties({},{${esModule}${getters.join(",")}}));`;
}

/** Where an import goes instead of its module: a chunk's stub, main.cjs's shared copy, or a late Node module's stub. */
function resolveLazy(args, chunkOf, loadedAtStart, self) {
  if (args.namespace === "rigging-lazy") return { path: args.path, external: true };
  if (chunkOf.has(args.path)) return { path: args.path, namespace: "rigging-lazy", pluginData: { chunk: chunkOf.get(args.path) } };
  if (args.path.startsWith(".") && args.resolveDir) {
    const file = sourcePath(join(args.resolveDir, args.path));
    if (chunkOf.has(file) && chunkOf.get(file) !== self) return { path: file, namespace: "rigging-lazy", pluginData: { chunk: chunkOf.get(file) } };
    if (self && !chunkOf.has(file) && file.startsWith("src/")) return { path: file, namespace: "rigging-lazy", pluginData: { shared: true } };
  }
  const builtin = args.path.replace(/^node:/, "");
  if (builtinModules.includes(builtin) && !loadedAtStart.has(builtin.split("/")[0]))
    return { path: `node:${builtin}`, namespace: "rigging-lazy", pluginData: { builtin } };
  return undefined;
}

/** A chunk's file taking a source outside every chunk from main.cjs, as constants so a use is a plain variable rather than a getter. */
async function sharedModule(bundle, path, self) {
  const names = await bundle.takenByKinds(path, self);
  if (!bundle.shared.has(self)) bundle.shared.set(self, new Map());
  bundle.shared.get(self).set(path, names);
  const take = `const m=__riggingChunk("main").__shared[${JSON.stringify(path)}];`;
  return {
    contents: take + names.map((name) => (name === "default" ? "export default m.default;" : `export const ${name}=m.${name};`)).join(""),
    loader: "js",
  };
}

/** A late Node module's stub, with the names src/ takes from it. */
function builtinStub(used, builtin) {
  const asked = [used.get(`node:${builtin}`), used.get(builtin)];
  const names =
    asked.includes(ALL) || asked.every((a) => a === undefined) ? Object.getOwnPropertyNames(require(`node:${builtin}`)) : asked.flatMap((a) => [...(a ?? [])]);
  return { contents: lazyStub([...new Set(names)], `require(${JSON.stringify(`node:${builtin}`)})`), loader: "js" };
}

/** Resolves each chunked specifier and late Node module to its stub; `self` is the chunk being built, if any. */
export function lazyModules(bundle, loadedAtStart, self) {
  const { allChunks, codeChunks, used } = bundle.plan;
  const chunkOf = new Map(Object.entries(allChunks).flatMap(([chunk, specifiers]) => specifiers.map((s) => [s, chunk])));
  return {
    name: "rigging-lazy-modules",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => resolveLazy(args, chunkOf, loadedAtStart, self));
      b.onLoad({ filter: /.*/, namespace: "rigging-lazy" }, async (args) => {
        const { chunk, builtin, shared } = args.pluginData;
        if (shared) return sharedModule(bundle, args.path, self);
        if (builtin) return builtinStub(used, builtin);
        const names = Object.hasOwn(codeChunks, chunk)
          ? await bundle.takenFromKind(args.path)
          : Object.getOwnPropertyNames(bundle.chunkExports[chunk][args.path]);
        return { contents: lazyStub(names, `__riggingChunk(${JSON.stringify(chunk)})[${JSON.stringify(args.path)}]`), loader: "js" };
      });
    },
  };
}
