// Builds gestalt_nb/labextension (a prebuilt JupyterLab 4 extension) from js/labextension/src with
// JupyterLab's own builder (@jupyterlab/builder, webpack module federation: JupyterLab's CodeMirror and
// Lezer packages are used as the page's singletons, not bundled).
// Usage: cd js/labextension && npm ci && npm run build   (PYTHON=... picks the Python whose jupyterlab
// provides the core package metadata; default: python3)
//
// SOURCE_HASH (written to gestalt_nb/labextension/source.hash) = sha256 hex over, for each path in
// sorted order of the relative POSIX paths (relative to js/labextension/) of every file under src/
// plus package.json, package-lock.json and build.mjs: utf8(relpath) + NUL + raw bytes + NUL
// (the same recipe as the canvas bundle's; tests/test_editor.py recomputes it).
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, "..", "..", "gestalt_nb", "labextension");

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

function sourceHash() {
  const files = [...walk(join(here, "src")), join(here, "package.json"), join(here, "package-lock.json"), join(here, "build.mjs")];
  const rels = files.map((f) => relative(here, f).split(sep).join("/"));
  rels.sort((a, b) => Buffer.from(a, "utf8").compare(Buffer.from(b, "utf8")));
  const h = createHash("sha256");
  for (const rel of rels) {
    h.update(Buffer.from(rel, "utf8"));
    h.update(Buffer.from([0]));
    h.update(readFileSync(join(here, ...rel.split("/"))));
    h.update(Buffer.from([0]));
  }
  return h.digest("hex");
}

const python = process.env.PYTHON || "python3";
const core = execFileSync(python, ["-c", "import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), 'staging'))"])
  .toString().trim();
rmSync(join(outDir, "static"), { recursive: true, force: true });
execFileSync(join(here, "node_modules", ".bin", "build-labextension"), ["--core-path", core, here], { stdio: "inherit", cwd: here });
writeFileSync(join(outDir, "install.json"), JSON.stringify({
  packageManager: "python",
  packageName: "gestalt-nb",
  uninstallInstructions: "Use your Python package manager (pip, conda, etc.) to uninstall the package gestalt-nb",
}, null, 2) + "\n");
writeFileSync(join(outDir, "source.hash"), sourceHash() + "\n");
