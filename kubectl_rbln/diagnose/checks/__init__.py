"""One check per file: each a pure function of a PodContext that returns findings."""
