"""Helpers of the hostile-project tests (issue 25): run `python -m pnp` bounded in memory
and CPU, and watched by an audit hook (PEP 578) that records every program started and
every file opened under a folder, so a test can say "no subprocess, nothing read or
written outside the project, --out and the cache"."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "minimal-cards.yaml"

# Loaded by the interpreter at start-up (it is first on PYTHONPATH): the audit hook.
SITECUSTOMIZE = r'''
import os, sys
_log = os.environ.get("PNP_TEST_AUDIT")
_watch = os.environ.get("PNP_TEST_WATCH", "")
if _log:
    _fd = os.open(_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    _RUN = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
            "os.fork", "os.forkpty", "pty.spawn"}

    def _hook(event, args):
        if event in _RUN:
            os.write(_fd, ("run\t" + event + "\t" + repr(args)[:300].replace("\n", " ")
                           + "\n").encode("utf-8", "replace"))
        elif event == "open" and _watch and args and isinstance(args[0], (str, bytes)):
            path = os.fsdecode(args[0])
            if path.startswith(_watch):
                mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
                flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
                write = any(c in mode for c in "wax+") or flags & (os.O_WRONLY | os.O_RDWR)
                os.write(_fd, (("write" if write else "read") + "\t" + path + "\n").encode(
                    "utf-8", "replace"))

    sys.addaudithook(_hook)

    def _rss():
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        os.write(_fd, ("rss\t" + str(peak) + "\n").encode())

    import atexit
    atexit.register(_rss)
'''


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    cpu: float                      # CPU seconds (user + system) of the process and its workers
    max_rss_mb: float
    started: list[str]              # programs started (audit events)
    opened: list[tuple[str, str]]   # (read|write, path) under the watched folder


def limits(max_mb: int, cpu_s: int):
    """A preexec_fn bounding the child's address space and CPU seconds."""
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (max_mb << 20, max_mb << 20))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
    return apply


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def pnp(*args: str, cwd: Path, watch: Path, timeout: float = 60, max_mb: int = 1200,
        cpu_s: int = 40, env: dict | None = None) -> Run:
    """`python -m pnp ARGS` in `cwd`, bounded, audited; files opened under `watch` are
    recorded. The cache folder is `watch/cache` unless `env` says otherwise. A process
    of its own is the point: memory and CPU limits, and an audit hook installed at its
    start-up that sees its workers too (a hook cannot be removed from a process)."""
    hooks = watch / ".audit"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    log = hooks / f"log-{time.monotonic_ns()}"
    full_env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hooks), str(ROOT)]),
                "PNP_TEST_AUDIT": str(log), "PNP_TEST_WATCH": str(watch.resolve()),
                "PNP_CACHE_DIR": str(watch / "cache"), **(env or {})}
    before = _children_cpu()
    proc = subprocess.Popen([sys.executable, "-m", "pnp", *args], cwd=cwd, env=full_env,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=limits(max_mb, cpu_s))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"pnp {' '.join(args)} did not finish in {timeout} s") from None
    cpu = _children_cpu() - before     # its own CPU: a loaded machine does not slow it
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    runs, opened = audited(lines)
    peaks = [int(ln.split("\t")[1]) for ln in lines if ln.startswith("rss\t")]
    rss = peaks[-1] / 1024 if peaks else float("nan")      # KB on Linux
    return Run(proc.returncode, out, err, cpu, rss, runs, opened)


def audited(lines: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The programs started and the (read|write, path) files opened, from an audit log's
    lines (the hook's `run` and `read`/`write` lines)."""
    runs = [ln.split("\t", 2)[2] for ln in lines if ln.startswith("run\t")]
    opened = [(kind, path) for kind, path in (ln.split("\t", 1) for ln in lines
                                              if ln.startswith(("read\t", "write\t")))]
    return runs, opened


def one_line_error(run: Run, code: int, *needles: str) -> str:
    assert run.returncode == code, (run.returncode, run.stdout[-500:], run.stderr[-2000:])
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("pnp:")]
    assert len(lines) == 1, run.stderr[-2000:]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def stayed_inside(run: Run, *allowed: Path) -> None:
    """No program was started; every file opened under the watched folder is inside one
    of `allowed` (the project, --out, the cache) or is the audit's own."""
    assert run.started == [], run.started
    roots = [str(Path(a).resolve()) + os.sep for a in allowed]
    outside = [(how, p) for how, p in run.opened
               if f"{os.sep}.audit{os.sep}" not in p and not any(p.startswith(r) for r in roots)]
    assert outside == [], outside


def project(tmp_path: Path, text: str | None = None) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "cards.yaml").write_text(
        text if text is not None else FIXTURE.read_text(encoding="utf-8"), encoding="utf-8")
    shutil.copytree(ROOT / "templates", folder / "templates")
    return folder


def with_owner_art(folder: Path, name: str) -> None:
    """Coach (the Owner card of the fixture) drawn with art `name`."""
    cards = folder / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace(
        "{name: Coach, type: Owner,", f"{{name: Coach, type: Owner, image: {name},", 1),
        encoding="utf-8")


def gs_stand_in(tmp_path: Path) -> tuple[dict, Path]:
    """A `gs` (and `gsc`, `gswin64c`) first on PATH that records being called; the env
    to run with and the file it writes."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    marker = tmp_path / "gs-was-called"
    for name in ("gs", "gsc", "gswin64c", "gswin32c"):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\necho \"$@\" >> '{marker}'\nexit 0\n", encoding="utf-8")
        script.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}, marker


def flat_png(path: Path, width: int, height: int, white: bool = False) -> None:
    """A one-bit PNG of one colour, `width` x `height` px, written row by row: the file
    Pillow's `Image.new("1", size, white).save(path)` writes, without the byte per pixel
    Pillow holds in memory first (400 MB and a second of CPU for a 20000 px square)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    row = b"\0" + (b"\xff" if white else b"\0") * ((width + 7) // 8)   # filter 0, the bits
    packer = zlib.compressobj(9)
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)       # 1 bit, grey
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body)
                     + chunk(b"IEND", b""))
