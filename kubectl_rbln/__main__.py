"""`python -m kubectl_rbln` runs the same CLI as the `kubectl-rbln` entry point."""

from kubectl_rbln.cli.main import main

if __name__ == "__main__":
    main()
