"""Real JupyterLab 4 / Notebook 7 servers and a Playwright driver for their pages (offline).

``JupyterServer`` starts ``python -m jupyter lab`` or ``python -m jupyter notebook`` on 127.0.0.1
(free port, a token, a temp root and temp config/runtime/settings/workspace dirs; update checks and
news off; ipywidgets' ``saveState`` on so saved notebooks carry widget state) and stops it with
bounded waits. ``JupyterPage`` opens a notebook in Chromium, runs cells through the menus or the
keyboard, waits for the kernel, and records what the page did: every request not to the local
server is refused and recorded (``remote``), console lines and page errors are kept (``console``,
``errors``), dialogs are dismissed and recorded (``dialogs``).

Used by tests/test_canvas_browser.py and bench/bench_draw.py.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic", "--disable-default-apps"]
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: Where the browser tests put their screenshots: $GESTALT_SHOTS, else a folder in the system's temp folder.
SHOTS = Path(os.environ.get("GESTALT_SHOTS") or Path(tempfile.gettempdir()) / "gestalt-shots")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_settings(settings_dir: Path, plugin: str, values: dict[str, Any]) -> None:
    """Write ``values`` as the user settings of ``plugin`` ("@scope/package:name")."""
    package, name = plugin.rsplit(":", 1)
    path = settings_dir / package / f"{name}.jupyterlab-settings"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values, indent=2), encoding="utf-8")


DEFAULT_SETTINGS = {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}}
# Notebook 7 has no notification plugin; user settings for a plugin it lacks make its settings registry throw.
LAB_SETTINGS = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}


class JupyterServer:
    """One Jupyter server (``frontend`` "lab" or "notebook") serving ``root`` (a temp dir if None)."""

    def __init__(self, frontend: str = "lab", root: Path | None = None, settings: dict[str, dict] | None = None,
                 python: str = sys.executable) -> None:
        if frontend not in ("lab", "notebook"):
            raise ValueError("frontend is 'lab' or 'notebook'")
        self.frontend = frontend
        self._scratch = Path(tempfile.mkdtemp(prefix=f"gestalt-{frontend}-"))
        self.root = Path(root) if root is not None else self._scratch / "root"
        self.root.mkdir(parents=True, exist_ok=True)
        self.settings_dir = self._scratch / "settings"
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.python = python
        self.process: subprocess.Popen | None = None
        self.log_path = self._scratch / "server.log"
        defaults = {**DEFAULT_SETTINGS, **(LAB_SETTINGS if frontend == "lab" else {})}
        for plugin, values in {**defaults, **(settings or {})}.items():
            write_settings(self.settings_dir, plugin, values)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("JUPYTER", "JPY_"))}
        for name in ("config", "data", "runtime", "workspaces", "ipython"):
            (self._scratch / name).mkdir(exist_ok=True)
        env.update(
            JUPYTER_CONFIG_DIR=str(self._scratch / "config"),
            JUPYTER_DATA_DIR=str(self._scratch / "data"),
            JUPYTER_RUNTIME_DIR=str(self._scratch / "runtime"),
            JUPYTERLAB_SETTINGS_DIR=str(self.settings_dir),
            JUPYTERLAB_WORKSPACES_DIR=str(self._scratch / "workspaces"),
            IPYTHONDIR=str(self._scratch / "ipython"),
            JUPYTER_PLATFORM_DIRS="1",
            PYTHONUNBUFFERED="1",
        )
        return env

    def command(self) -> list[str]:
        command = [
            self.python, "-m", "jupyter", self.frontend, "--no-browser", "--allow-root",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
            "--ServerApp.open_browser=False",
        ]
        if self.frontend == "lab":
            command += ["--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        return command

    def start(self, timeout: float = 90) -> "JupyterServer":
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(self.command(), env=self.env(), cwd=str(self.root), stdout=self._log,
                                        stderr=subprocess.STDOUT)
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter {self.frontend} exited ({self.process.returncode}):\n{self.log()[-3000:]}")
            try:
                self.api("GET", "/api/status", timeout=2)
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"jupyter {self.frontend} did not answer within {timeout:.0f} s:\n{self.log()[-3000:]}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def api(self, method: str, path: str, body: Any = None, timeout: float = 10) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
        return json.loads(text) if text else None

    def kernels(self) -> list[dict[str, Any]]:
        return self.api("GET", "/api/kernels")

    def shutdown_kernels(self) -> None:
        for kernel in self.kernels():
            try:
                self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=15)
            except (urllib.error.URLError, OSError):
                pass

    def url(self, path: str) -> str:
        """The address of a notebook (relative to the root) in this server's frontend."""
        if self.frontend == "lab":  # ?reset: a fresh workspace, so earlier notebooks' tabs are not restored
            return f"{self.base}/lab/tree/{path}?reset&token={self.token}"
        return f"{self.base}/notebooks/{path}?token={self.token}"

    def stop(self, timeout: float = 15) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            try:
                self.shutdown_kernels()
                self.api("POST", "/api/shutdown", timeout=5)
            except (urllib.error.URLError, OSError):
                pass
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=5)
        self._log.close()
        self.process = None
        atexit.unregister(self.stop)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def __enter__(self) -> "JupyterServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.cleanup()


@contextmanager
def browser(headless: bool = True):
    """A Chromium (Debian's, never a downloaded one) through Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    if CHROMIUM is None:
        raise RuntimeError("Chromium is not installed: apt-get install -y chromium")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=headless)
        try:
            yield instance
        finally:
            instance.close()


# JS evaluated in the page: the state of every code cell, in notebook order.
#: The notebook on show (JupyterLab keeps other tabs' DOM, hidden).
NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook"
CELLS_JS = """() => Array.from(document.querySelectorAll('""" + NOTEBOOK + """ .jp-Cell.jp-CodeCell')).map(cell => {
  const prompt = cell.querySelector('.jp-InputPrompt');
  return {prompt: prompt ? prompt.textContent.trim() : '',
          error: !!cell.querySelector('[data-mime-type="application/vnd.jupyter.error"]')};
})"""


# Installed before any page script: remembers when each output appeared, and what each canvas drew
# on its first frame (counts taken in the promise callback of `ready`, i.e. right after that frame).
FIRST_FRAME_JS = r"""
(() => {
  const seen = new WeakSet();
  const mark = (node) => { if (node.__appearedAt === undefined) node.__appearedAt = performance.now(); };
  const watch = (el) => {
    if (seen.has(el)) return;
    seen.add(el);
    const out = el.closest('.jp-OutputArea-output');
    const appeared = out ? out.__appearedAt : undefined;
    const wait = () => {
      const h = el.gestaltCanvas;
      if (!h || !h.ready) { setTimeout(wait, 5); return; }
      h.ready.then(() => {
        el.__gestaltFirst = {drawn: h.nodesDrawn(), inView: h.nodesInView(), at: performance.now(), appeared,
                             instance: h.sigmaInstanceId()};
      });
    };
    wait();
  };
  const scan = (node) => {
    if (node.nodeType !== 1) return;
    if (node.matches('.jp-OutputArea-output')) mark(node);
    node.querySelectorAll('.jp-OutputArea-output').forEach(mark);
    if (node.matches('[data-gestalt-canvas]')) watch(node);
    node.querySelectorAll('[data-gestalt-canvas]').forEach(watch);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') scan(r.target);
      for (const n of r.addedNodes) scan(n);
    }
  }).observe(document, {childList: true, subtree: true, attributes: true, attributeFilter: ['data-gestalt-canvas']});
})();
"""


class JupyterPage:
    """A notebook open in one frontend, with every request and console line recorded.

    Never ``time.sleep`` while a page is open: requests are routed through Python, so a sleeping
    driver stalls the page (use ``pause``).
    """

    def __init__(self, browser: Any, server: JupyterServer, viewport: dict[str, int] | None = None, device_scale_factor: float | None = None) -> None:
        self.server = server
        scale = {"device_scale_factor": device_scale_factor} if device_scale_factor else {}
        self.context = browser.new_context(viewport=viewport or {"width": 1400, "height": 1000}, service_workers="block",
                                           accept_downloads=True, **scale)
        self.remote: list[str] = []
        self.local: list[str] = []
        self.console: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"{error}\n{error.stack or ''}"))
        self.page.on("dialog", self._dialog)
        self.page.on("websocket", self._websocket)
        self.path: str | None = None

    # -- recording -----------------------------------------------------------------------
    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith((self.server.base + "/", "data:", "blob:", "about:")):
            self.local.append(url)
            route.continue_()
        else:
            self.remote.append(url)
            route.abort()

    def _websocket(self, socket_: Any) -> None:
        if not socket_.url.startswith(f"ws://127.0.0.1:{self.server.port}/"):
            self.remote.append(socket_.url)

    def _console(self, message: Any) -> None:
        location = message.location or {}
        self.console.append({"type": message.type, "text": message.text, "url": location.get("url", "")})

    def _dialog(self, dialog: Any) -> None:
        if dialog.type == "beforeunload":  # leaving a notebook with unsaved outputs: leave
            dialog.accept()
            return
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def pause(self, seconds: float) -> None:
        """Wait while Playwright keeps serving the page (``time.sleep`` would stall every routed request)."""
        self.page.wait_for_timeout(seconds * 1000)

    def console_errors(self) -> list[dict[str, Any]]:
        return [line for line in self.console if line["type"] == "error"]

    # -- notebooks -----------------------------------------------------------------------
    def open(self, path: str, timeout: float = 60_000) -> None:
        """Open ``path`` (relative to the server root) and wait for its kernel to be idle."""
        self.path = path
        self.page.goto(self.server.url(path), wait_until="domcontentloaded", timeout=timeout)
        self.page.wait_for_selector(f"{NOTEBOOK} .jp-Cell", timeout=timeout)
        self.wait_kernel_idle(timeout=timeout / 1000)

    def reload(self, timeout: float = 60_000) -> None:
        """Reload the page (F5) on the notebook open, and wait for its kernel (the same one, if alive) to be idle."""
        self.page.reload(wait_until="domcontentloaded", timeout=timeout)
        self.page.wait_for_selector(f"{NOTEBOOK} .jp-Cell", timeout=timeout)
        self.wait_kernel_idle(timeout=timeout / 1000)

    def restart_kernel(self, timeout: float = 60) -> None:
        """Restart this notebook's kernel (as Kernel → Restart Kernel does; through the server) and wait until it is idle."""
        sessions = [s for s in self.server.api("GET", "/api/sessions") if s.get("path", "").endswith(self.path or "\0")]
        for session in sessions:
            self.server.api("POST", f"/api/kernels/{session['kernel']['id']}/restart", timeout=timeout)
        self.wait_kernel_idle(timeout=timeout)

    def kernel_state(self) -> str | None:
        sessions = [s for s in self.server.api("GET", "/api/sessions") if s.get("path", "").endswith(self.path or "\0")]
        if not sessions or not sessions[0].get("kernel"):
            return None
        return sessions[0]["kernel"].get("execution_state")

    def wait_kernel_idle(self, timeout: float = 60, stable: float = 0.3) -> None:
        deadline = time.monotonic() + timeout
        idle_since = None
        while time.monotonic() < deadline:
            if self.kernel_state() == "idle":
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since >= stable:
                    return
            else:
                idle_since = None
            self.pause(0.15)
        raise TimeoutError(f"the kernel of {self.path} was not idle within {timeout:.0f} s (sessions {self.server.api('GET', '/api/sessions')})")

    def menu(self, *names: str) -> None:
        """Click through the menu bar: ``menu("Run", "Run All Cells")``."""
        top, *rest = names
        self.page.locator(".lm-MenuBar-itemLabel", has_text=top).first.click()
        for name in rest:
            item = self.page.locator(".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel").filter(
                has_text=re.compile(rf"^\s*{re.escape(name)}\s*$")).first
            item.hover()
            item.click()

    def cells(self) -> list[dict[str, Any]]:
        return self.page.evaluate(CELLS_JS)

    def run_all(self, timeout: float = 180) -> list[dict[str, Any]]:
        """Run → Run All Cells, then wait until every cell ran (or the run stopped at an error) and the kernel is idle."""
        self.menu("Run", "Run All Cells")
        return self.wait_executed(timeout)

    def wait_executed(self, timeout: float = 180) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            cells = self.cells()
            if cells and not any("*" in cell["prompt"] for cell in cells):
                numbered = [cell["prompt"] not in ("[ ]:", "[]:", "") for cell in cells]
                stopped = any(cell["error"] for cell in cells)
                if all(numbered) or stopped:
                    try:
                        self.wait_kernel_idle(timeout=max(deadline - time.monotonic(), 1))
                    except TimeoutError:
                        continue
                    if not any("*" in cell["prompt"] for cell in self.cells()):
                        return self.cells()
            self.pause(0.25)
        raise TimeoutError(f"{self.path}: cells still running after {timeout:.0f} s: {self.cells()}")

    def run_cell(self, source: str, timeout: float = 60) -> str:
        """Add a code cell at the end, run it, and return its output text."""
        cells = self.page.locator(f"{NOTEBOOK} .jp-Cell")
        cells.last.locator(".jp-InputPrompt").first.click()
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("b")
        count = cells.count()
        new = cells.last
        new.locator(".cm-content").click()
        self.page.keyboard.insert_text(source)
        self.page.keyboard.press("Shift+Enter")
        self.page.wait_for_function(
            """([n, sel]) => { const cells = document.querySelectorAll(sel + ' .jp-Cell');
                          const p = cells[n - 1] && cells[n - 1].querySelector('.jp-InputPrompt');
                          return p && /\\[\\d+\\]/.test(p.textContent); }""",
            arg=[count, NOTEBOOK], timeout=timeout * 1000)
        self.wait_kernel_idle(timeout=timeout, stable=0.2)
        return cells.nth(count - 1).locator(".jp-OutputArea").inner_text()

    def kernel_json(self, source: str, timeout: float = 60) -> Any:
        """Run ``source`` (it must print one JSON line last) in a new cell and parse what it printed."""
        text = self.run_cell(source, timeout)
        lines = [line for line in text.strip().splitlines() if line.strip()]
        if not lines:
            raise AssertionError(f"the cell printed nothing:\n{source}")
        try:
            return json.loads(lines[-1])
        except json.JSONDecodeError as exc:
            raise AssertionError(f"the cell did not print JSON:\n{text[-3000:]}") from exc

    def save(self, timeout: float = 30) -> Path:
        """Ctrl+S and wait until the file on disk changed; returns its path."""
        path = self.server.root / (self.path or "")
        before = path.stat().st_mtime_ns if path.exists() else 0
        self.page.locator(NOTEBOOK).first.click(position={"x": 5, "y": 5})
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("Control+s")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if path.exists() and path.stat().st_mtime_ns != before:
                size = path.stat().st_size
                self.pause(0.4)
                if path.stat().st_size == size:
                    try:
                        json.loads(path.read_text(encoding="utf-8"))
                        return path
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        pass  # still being written
            self.pause(0.1)
        raise TimeoutError(f"{path} was not saved within {timeout:.0f} s")

    def close_notebook(self, wait: bool = True) -> None:
        """Stop this notebook's kernel (the page stays open); ``wait=False``: in a background thread."""
        sessions = [s for s in self.server.api("GET", "/api/sessions") if s.get("path", "").endswith(self.path or "\0")]

        def stop() -> None:
            for session in sessions:
                try:
                    self.server.api("DELETE", f"/api/sessions/{session['id']}", timeout=30)
                except (urllib.error.URLError, OSError):
                    pass

        if wait:
            stop()
        else:
            threading.Thread(target=stop, daemon=True).start()

    # -- canvases ------------------------------------------------------------------------
    def canvases(self) -> Any:
        return self.page.locator(f"{NOTEBOOK} [data-gestalt-canvas]")

    def close(self) -> None:
        try:
            self.context.close()
        except Exception:
            pass


# The contrast (WCAG) between an element's text and what it stands on: its own background or, where that is
# transparent, the nearest ancestor's; a translucent text colour is mixed over it. From computed colours ("rgb(…)",
# "rgba(…)" or, for a color-mix, "color(srgb …)").
CONTRAST_JS = """(selector) => {
  const el = document.querySelector(selector);
  const parts = (text) => text.match(/[\\d.]+/g).map(Number);
  const rgb = (text) => { const v = parts(text).slice(0, 3); return text.startsWith('color(') ? v : v.map((c) => c / 255); };
  const alpha = (text) => (text.includes('/') || text.startsWith('rgba') ? parts(text)[3] : 1);
  let under = el;
  while (under.parentElement && alpha(getComputedStyle(under).backgroundColor) === 0) under = under.parentElement;
  const bg = rgb(getComputedStyle(under).backgroundColor), text = getComputedStyle(el).color, a = alpha(text);
  const fg = rgb(text).map((c, i) => a * c + (1 - a) * bg[i]);
  const lum = (v) => { const [r, g, b] = v.map((c) => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const [x, y] = [lum(fg), lum(bg)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}"""


def contrast(page: JupyterPage, selector: str) -> float:
    """The WCAG contrast of the first element matching ``selector``: 4.5 and above reads as body text."""
    return page.page.evaluate(CONTRAST_JS, selector)
