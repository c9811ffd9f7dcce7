"""Test and benchmark support outside the runtime package: never shipped in the wheel.

Why: the synthetic cluster generator (`testing.synthetic`) is only for tests/, bench/ and the
example bundles; keeping it out of `kubectl_rbln` keeps the installed plugin small and its
runtime modules free of test-data spellings.
"""
