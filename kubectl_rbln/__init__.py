"""kubectl-rbln: diagnose DRA device allocation of Rebellions NPUs and RoCE NICs."""

__version__ = "0.1.0"
