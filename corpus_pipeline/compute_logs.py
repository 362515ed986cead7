"""Dagster's local compute logs, echoed to the terminal by a thread instead of four helper processes per step.

Dagster's ``LocalComputeLogManager`` captures a step's stdout and stderr into files (what the UI shows) and echoes
each file back to the original stream with a ``tail -F`` process, watched by a Python process of its own that kills
the tail if the step's process dies: four processes per running step, ~26 MiB of RSS beside a run of ``corpus_job``
(the Python watchers ~11 MiB each). :class:`EchoingComputeLogManager` captures into the same files in the same
place, and echoes them from a thread of the step's own process, which dies with it; on the step's end the thread
reads the files to their end, where ``tail`` was stopped and could miss the last lines (Dagster issue 23336).
``dagster.yaml`` selects it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

from dagster import Field, Float, StringSource
from dagster._core.execution.compute_logs import redirect_to_file, should_disable_io_stream_redirect
from dagster._core.instance.ref import compute_logs_directory
from dagster._core.storage.compute_log_manager import CapturedLogContext, ComputeIOType
from dagster._core.storage.local_compute_log_manager import IO_TYPE_EXTENSION, LocalComputeLogManager
from dagster._serdes import ConfigurableClassData
from dagster._utils import ensure_file, touch_file

_POLL_S = 0.25  # how often the echo looks for new output (tail -F: 1 s)
_CHUNK_BYTES = 1 << 16


class EchoingComputeLogManager(LocalComputeLogManager):
    """``LocalComputeLogManager`` whose captured output is echoed by a thread of the step's process.

    ``base_dir`` defaults to Dagster's own place for compute logs, ``storage`` under the instance's folder.
    """

    def __init__(
        self, base_dir: str | None = None, polling_timeout: float | None = None,
        inst_data: ConfigurableClassData | None = None,
    ) -> None:
        super().__init__(base_dir or "", polling_timeout=polling_timeout, inst_data=inst_data)
        self._base_dir_given = bool(base_dir)

    def register_instance(self, instance: Any) -> None:
        super().register_instance(instance)
        if not self._base_dir_given:
            self._base_dir = compute_logs_directory(instance.root_directory)

    @classmethod
    def config_type(cls) -> dict:
        return {"base_dir": Field(StringSource, is_required=False), "polling_timeout": Field(Float, is_required=False)}

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData | None, config_value: Any) -> EchoingComputeLogManager:
        return cls(inst_data=inst_data, **config_value)

    @contextmanager
    def capture_logs(self, log_key: Sequence[str]) -> Generator[CapturedLogContext, None, None]:
        out = self.get_captured_local_path(log_key, IO_TYPE_EXTENSION[ComputeIOType.STDOUT])
        err = self.get_captured_local_path(log_key, IO_TYPE_EXTENSION[ComputeIOType.STDERR])
        with echoed_to_file(sys.stdout, out), echoed_to_file(sys.stderr, err):
            yield CapturedLogContext(log_key)
        touch_file(self.complete_artifact_path(log_key))  # as Dagster's: the capture is complete


@contextmanager
def echoed_to_file(stream: IO, path: str) -> Iterator[None]:
    """Within this block, what is written to ``stream``'s file descriptor (this process's and its children's) goes
    to the end of the file at ``path``, and the file is echoed, from its start, to where the descriptor went before
    (as Dagster's ``tail -F -c +0``)."""
    ensure_file(path)
    descriptor = _fileno(stream)
    if descriptor is None or should_disable_io_stream_redirect():
        with redirect_to_file(stream, path):
            yield
        return
    target = os.dup(descriptor)
    done = threading.Event()
    echo = threading.Thread(target=_echo, args=(path, target, done), name=f"echo {os.path.basename(path)}", daemon=True)
    echo.start()
    try:
        with redirect_to_file(stream, path):
            yield
    finally:
        done.set()
        echo.join()
        os.close(target)


def _echo(path: str, target: int, done: threading.Event) -> None:
    """Copy ``path`` to the descriptor ``target`` as it grows; once ``done`` is set, copy what is left and return."""
    with open(path, "rb") as source:
        while True:
            finished = done.is_set()  # read before the last pass, so output written before it is not missed
            while chunk := source.read(_CHUNK_BYTES):
                _write_all(target, chunk)
            if finished:
                return
            done.wait(_POLL_S)


def _write_all(target: int, data: bytes) -> None:
    try:
        while data:
            data = data[os.write(target, data):]
    except OSError:  # the terminal or pipe went away: the file still has everything
        pass


def _fileno(stream: IO) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # a stream without a descriptor (replaced by a test runner)
        return None
