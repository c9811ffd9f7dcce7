"""A Pod's life as explicit stages, decided from the objects before any rule runs.

Kubernetes itself draws these stages (design.md, "the Pod's life as the spine"): the owner creates
the Pod, the claim controller its claims, PreEnqueue lets it into the queue, a scheduler that
allocates claims takes it, Filter/Reserve allocate and reserve the claims, PreBind/Bind bind it, the
kubelet admits it, prepares its claims, creates the sandbox and starts the containers, and the
containers see what they were given. A verdict is the earliest stage not passed.
"""

from __future__ import annotations

STAGES: tuple[str, ...] = (
    "created",  # the Pod (and its owners) were created: nothing refused to create it
    "claims-created",  # every spec.resourceClaims entry has its ResourceClaim (not being deleted)
    "queued",  # let into scheduling: no schedulingGates, PreEnqueue passed
    "scheduler",  # taken by a scheduler that allocates claims, and that scheduler is running
    "allocated",  # every claim allocated and reserved for the Pod
    "bound",  # spec.nodeName set (PreBind's binding conditions met, Bind done)
    "admitted",  # the kubelet admitted it (not Failed with an admission reason)
    "prepared",  # the kubelet prepared its claims (NodePrepareResources, CDI)
    "sandbox",  # the Pod sandbox was created (CNI, NRI hooks)
    "running",  # every container running and ready, not restarting, not stuck terminating
    "devices",  # running with what it was given (pod-devices)
)
