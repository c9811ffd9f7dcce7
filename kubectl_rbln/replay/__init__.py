"""The replay server: a bundle served as a read-only Kubernetes API (see `server`).

Its own package because it sits above the source layer (it reads bundles with
cluster/files.py) and below everything that diagnoses or draws: nothing here
imports from cli/, diagnose/, remedy/ or render/.
"""
