"""Paste a fix as an operator pastes it, and read what ran (issue 22, point 6).

`shim` (the recording kubectl, ssh and node programs, first on PATH), `plugin_server` (the plugin
from a warm process), `shell` (a block pasted into bash), `blocks` (a finding's fix as the `why`
table prints it, split in paths), `changes` (which objects a recorded change touches), `checks`
(what must hold of what ran), `run` (one scenario against its replay server).
"""
