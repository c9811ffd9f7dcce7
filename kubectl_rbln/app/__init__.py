"""Use cases: one pure function per command, a Snapshot and a typed request in, a typed report out."""
