// Paths as the kubelet reads them: it cleans mount paths with Go's filepath.Clean,
// which on Linux is path.Clean (go/src/path/path.go).

/** Go's path.Clean: `./a` is `a`, `//a/` is `/a`, `/a/../b` is `/b`, `/..` is `/`, the empty path is `.`. */
export function cleanPath(path: string): string {
  if (path === "") return ".";
  // Most paths are clean already; Go's lazybuf returns those untouched too.
  if (isClean(path)) return path;
  const rooted = path[0] === "/";
  const n = path.length;
  const out: string[] = [];
  let r = 0;
  let dotdot = 0;
  if (rooted) {
    out.push("/");
    r = dotdot = 1;
  }
  while (r < n) {
    if (path[r] === "/") r++;
    else if (path[r] === "." && (r + 1 === n || path[r + 1] === "/")) r++;
    else if (path[r] === "." && path[r + 1] === "." && (r + 2 === n || path[r + 2] === "/")) {
      r += 2;
      if (out.length > dotdot) {
        // Drop the last element and the separator before it (Go's lazybuf w--).
        let w = out.length - 1;
        while (w > dotdot && out[w] !== "/") w--;
        out.length = w;
      } else if (!rooted) {
        if (out.length > 0) out.push("/");
        out.push(".", ".");
        dotdot = out.length;
      }
    } else {
      if ((rooted && out.length !== 1) || (!rooted && out.length !== 0)) out.push("/");
      for (; r < n && path[r] !== "/"; r++) out.push(path[r]);
    }
  }
  return out.length === 0 ? "." : out.join("");
}

/** Whether path.Clean leaves `path` as it is: no empty, `.` or `..` element and no trailing slash (but `/` itself). */
function isClean(path: string): boolean {
  if (path === "/") return true;
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i < path.length && path.charCodeAt(i) !== 47) continue;
    const length = i - start;
    // An empty element is a doubled or trailing slash; a leading one is the root.
    if (length === 0 ? i !== 0 : length <= 2 && path.charCodeAt(start) === 46 && (length === 1 || path.charCodeAt(start + 1) === 46)) return false;
    start = i + 1;
  }
  return true;
}

/** Whether `path` is `dir` or inside it, both cleaned first (so `/var/run/../run/x` is under `/var/run/`). */
export function sameOrUnder(path: string, dir: string): boolean {
  const p = cleanPath(path);
  const d = cleanPath(dir);
  if (d === "/") return p[0] === "/";
  if (d === ".") return p[0] !== "/" && p !== ".." && !p.startsWith("../");
  return p === d || p.startsWith(`${d}/`);
}
