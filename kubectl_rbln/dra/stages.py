"""Why a device is or is not a candidate for a request: the stages the allocator records.

The allocator (allocator.py) stores one stage per device and request while it
prepares; the explanation (explain.py) counts them afterwards without running a
selector again. Both read these numbers, so they live here, below both: the
allocator calls the explanation, and the explanation must not import the
allocator back.
"""

from __future__ import annotations

NOT_CANDIDATE, CANDIDATE, ERROR = 0, 1, 2
# Why a device is not a candidate for a request, in the order the allocator checks.
STAGE_CLASS, STAGE_REQUEST, STAGE_BINDING, STAGE_TAINT, STAGE_OK, STAGE_ERROR = range(6)
# stage -> what the search does with the device
OUTCOME = {
    STAGE_CLASS: NOT_CANDIDATE,
    STAGE_REQUEST: NOT_CANDIDATE,
    STAGE_BINDING: NOT_CANDIDATE,
    STAGE_TAINT: NOT_CANDIDATE,
    STAGE_OK: CANDIDATE,
    STAGE_ERROR: ERROR,
}
