"""The filesystem under the harness's files: nothing here knows what a session or a memory is.

* :mod:`~harness.fs.root` — :class:`SafeRoot`: every path under one root, no symlink ever
  followed;
* :mod:`~harness.fs.path` — :class:`WorkspacePath`: a file named by its root and relative path;
* :mod:`~harness.fs.files` — atomic writes (temp + rename) and appends;
* :mod:`~harness.fs.locks` — OS file locks (``flock``): lock files with a holder and a wait,
  and the exclusive lock on a data file the event log's appends take.
"""
