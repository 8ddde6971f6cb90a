"""Keep user-code and torch chatter out of the helper's protocol streams.

While the user's model is imported, built and exported, file descriptors 1 and 2 point at a
log file: stdout stays one JSON line and stderr one error message. OPSCOPE_DEBUG=1 replays
the log on stderr.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile


@contextlib.contextmanager
def captured_output(replay: bool):
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            if replay:
                log.seek(0)
                sys.stderr.buffer.write(log.read())
                sys.stderr.flush()
