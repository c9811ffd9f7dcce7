"""The recording shim: one script put first on PATH as kubectl, ssh, sudo, crictl, systemctl, ...

Why: a pasted fix must be run as an operator runs it, yet nothing may change. Reads go to the real
kubectl (or the plugin) pointed at the replay server, so a file a fix writes holds what the cluster
would give; every change is only written down, with the content of each file it is given; a node
command is never run. Each invocation appends one line (a dict's repr) to $PASTE_RECORD.

Run as `python -S` (stdlib only, no site): it starts in milliseconds. Only what must be forwarded is:
a read whose output only the operator sees (stdout is the paste's terminal) is recorded, not run,
and taken as a success. A forwarded read's output is cached in $PASTE_CACHE by its arguments and
input files: the serve is read-only, so the same read always answers the same.
"""

from __future__ import annotations

import os
import sys

# Only os and sys at start: typing, json, subprocess and hashlib cost 20 ms to import, and most calls only
# record (a line of `repr`, read back with ast.literal_eval); a forwarded read imports them.

# kubectl verbs forwarded to the real kubectl: they only read.
FORWARDED = frozenset(
    {"get", "describe", "logs", "auth", "version", "explain", "api-resources", "api-versions", "events"}
)
# kubectl verbs that read but are not forwarded: they attach, stream, wait, or send a dry-run write.
READ_HERE = frozenset({"exec", "top", "wait", "port-forward", "attach", "cluster-info", "completion"})
PREVIEWS = frozenset({"diff"})  # a server-side dry-run PATCH: the read-only serve refuses it
# Global kubectl flags that take a value as the next word (verbs' own flags are read by the harness).
KUBECTL_VALUE_FLAGS = frozenset(
    {
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "--cluster",
        "--user",
        "-s",
        "--server",
        "--as",
        "--as-group",
        "--token",
        "--request-timeout",
        "--cache-dir",
    }
)
SSH_VALUE_FLAGS = frozenset("bcDEeFIiJLlmOopQRSWwB")
SHIM_ERROR = "paste shim failed"


def record(entry: dict[str, object]) -> None:
    entry |= {"cwd": os.getcwd(), "pid": os.getpid(), "stdout": _stdout_target()}
    line = repr(entry) + "\n"  # one line: repr escapes newlines
    fd = os.open(os.environ["PASTE_RECORD"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))  # one write per line: concurrent shims never interleave
    finally:
        os.close(fd)


def _stdout_target() -> str:
    """The file our stdout goes to (`> F`), "" for a pipe or the terminal."""
    try:
        target = os.readlink("/proc/self/fd/1")
    except OSError:
        return ""
    return target if target.startswith("/") and os.path.isfile(target) else ""


def _sha(data: bytes) -> str:
    import hashlib  # noqa: PLC0415 - see the imports above

    return hashlib.sha256(data).hexdigest()


def kubectl_verb(args: list[str]) -> tuple[str, list[str]]:
    """(verb, the words after it), global flags skipped wherever they stand before the verb."""
    skip = False
    for index, word in enumerate(args):
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = word in KUBECTL_VALUE_FLAGS
            continue
        return word, args[index + 1 :]
    return "", []


def file_arguments(args: list[str]) -> list[str]:
    """The values of -f/--filename (every spelling kubectl takes)."""
    out: list[str] = []
    for index, word in enumerate(args):
        if word in ("-f", "--filename") and index + 1 < len(args):
            out.append(args[index + 1])
        elif word.startswith("--filename="):
            out.append(word.split("=", 1)[1])
        elif word.startswith("-f") and len(word) > 2 and not word.startswith("--"):
            out.append(word[2:].removeprefix("="))
    return out


def read_files(args: list[str]) -> tuple[dict[str, str | None], str | None]:
    """({path: content, None when missing}, stdin when `-f -`): what a change was given to apply."""
    files: dict[str, str | None] = {}
    stdin = None
    for path in file_arguments(args):
        if path == "-":
            stdin = sys.stdin.buffer.read().decode("utf-8", "replace")
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                files[path] = handle.read()
        except OSError:
            files[path] = None
    return files, stdin


def dry_run(args: list[str]) -> str:
    for index, word in enumerate(args):
        if word.startswith("--dry-run="):
            return word.split("=", 1)[1]
        if word == "--dry-run":
            nxt = args[index + 1] if index + 1 < len(args) else ""
            return nxt if nxt in ("client", "server", "none") else "client"
    return ""


def forward(
    argv: list[str], inputs: list[str], env: dict[str, str], runner: object = None
) -> tuple[int, bytes]:
    """Run a read (cached by its words and the content of its input files); our stdout gets its output."""
    import hashlib  # noqa: PLC0415 - see the imports above
    import json  # noqa: PLC0415

    key = hashlib.sha256(json.dumps(argv).encode())
    for path in inputs:
        try:
            with open(path, "rb") as handle:
                key.update(_sha(handle.read()).encode())
        except OSError:
            key.update(b"missing:" + path.encode())
    cache = os.path.join(os.environ["PASTE_CACHE"], key.hexdigest() + ".json")
    try:
        with open(cache, encoding="utf-8") as handle:
            code, out, err = _unpack(json.load(handle))
    except OSError:
        code, out, err = (runner or _run)(argv, env)  # type: ignore[operator]
        partial = f"{cache}.{os.getpid()}"
        with open(partial, "w", encoding="utf-8") as handle:
            json.dump([code, out.decode("latin-1"), err.decode("latin-1")], handle)
        os.replace(partial, cache)  # whole or absent: a paste running beside this one reads it whole
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    return code, out


def _run(argv: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    import subprocess  # noqa: PLC0415 - see the imports above

    run = subprocess.run(
        argv, capture_output=True, stdin=subprocess.DEVNULL, env=env, timeout=120, check=False
    )
    return run.returncode, run.stdout, run.stderr


def _run_in_plugin_server(argv: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """The plugin run by a fork of the warm server (testing/paste/plugin_server.py)."""
    import json  # noqa: PLC0415 - see the imports above
    import socket  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    words = argv[3:]  # after `python -m kubectl_rbln`
    request = json.dumps({"argv": words, "env": dict(env), "cwd": os.getcwd()}).encode()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, open(os.devnull, "rb") as null:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as conn:
            conn.settimeout(120)
            conn.connect(os.environ["PASTE_PLUGIN_SOCKET"])
            socket.send_fds(conn, [request], [null.fileno(), out.fileno(), err.fileno()])
            answer = conn.recv(16)
        if not answer:
            raise RuntimeError(f"the plugin server's child ended without an exit code: {words}")
        out.seek(0)
        err.seek(0)
        return int(answer), out.read(), err.read()


def _unpack(entry: list[object]) -> tuple[int, bytes, bytes]:
    return int(entry[0]), entry[1].encode("latin-1"), entry[2].encode("latin-1")


def to_terminal() -> bool:
    """Our stdout is the operator's screen (not `> F`, not a pipe): nobody reads the output but them."""
    try:
        return os.path.samestat(os.fstat(1), os.stat(os.environ["PASTE_TERMINAL"]))
    except (OSError, KeyError):
        return False


def kubectl(args: list[str]) -> int:
    verb, rest = kubectl_verb(args)
    entry: dict[str, object] = {"program": "kubectl", "argv": args, "verb": verb}
    if verb == "rbln":
        return plugin(entry, rest)
    mode = dry_run(args)
    if verb in FORWARDED and to_terminal():  # only the operator reads it: not forwarded
        record(entry | {"action": "read", "forwarded": False, "rc": 0})
        return 0
    if verb in FORWARDED or (mode == "client" and verb in ("create", "apply")):
        real = [os.environ["PASTE_REAL_KUBECTL"], *args]
        if mode == "client":
            real.append("--validate=false")  # the serve has no OpenAPI documents to validate against
        if "-" in file_arguments(args):
            return _stdin_dry_run(entry, real)
        code, out = forward(real, file_arguments(args), dict(os.environ))
        action = "preview" if mode else "read"
        record(entry | {"action": action, "forwarded": True, "rc": code, "out_sha": _sha(out)})
        return code
    if verb in READ_HERE or (verb == "rollout" and rest[:1] in (["status"], ["history"])):
        record(entry | {"action": "read", "forwarded": False, "rc": 0})
        return 0
    files, stdin = read_files(args)
    action = "preview" if verb in PREVIEWS or mode else "change"
    missing = [path for path, content in files.items() if content is None]
    entry |= {"action": action, "files": files, "stdin": stdin, "rc": 1 if missing else 0}
    record(entry)
    for path in missing:  # as kubectl says it: the change stops here
        print(f'error: the path "{path}" does not exist', file=sys.stderr)
    return 1 if missing else 0


def plugin(entry: dict[str, object], rest: list[str]) -> int:
    """`kubectl rbln ...`: this checkout's plugin, against the serve (what kubectl's plugin lookup runs)."""
    if to_terminal():
        record(entry | {"action": "plugin", "forwarded": False, "rc": 0})
        return 0
    env = dict(os.environ, PYTHONPATH=os.environ["PASTE_REPO"], NO_COLOR="1")
    argv = [os.environ["PASTE_PYTHON"], "-m", "kubectl_rbln", *rest]
    runner = _run_in_plugin_server if os.environ.get("PASTE_PLUGIN_SOCKET") else None
    code, out = forward(argv, [w for w in rest if os.path.isfile(w)], env, runner)
    record(entry | {"action": "plugin", "forwarded": True, "rc": code, "out_sha": _sha(out)})
    return code


def _stdin_dry_run(entry: dict[str, object], real: list[str]) -> int:
    import subprocess  # noqa: PLC0415 - see the imports above

    data = sys.stdin.buffer.read()
    run = subprocess.run(real, input=data, capture_output=True, timeout=120, check=False)
    sys.stdout.buffer.write(run.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(run.stderr)
    stdin = data.decode("utf-8", "replace")
    record(entry | {"action": "preview", "forwarded": True, "rc": run.returncode, "stdin": stdin})
    return run.returncode


def ssh(args: list[str]) -> int:
    """Record the host and the remote command; never connect."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        word = args[index]
        index += 2 if len(word) == 2 and word[1] in SSH_VALUE_FLAGS else 1
    host = args[index] if index < len(args) else ""
    remote = " ".join(args[index + 1 :])
    user, _, name = host.rpartition("@")
    record({"program": "ssh", "argv": args, "host": name, "user": user, "remote": remote, "action": "remote"})
    return 0


def local_file_program(program: str, args: list[str]) -> int:
    """mkdir and tee run here only inside the paste's directory (an absolute path is a node's)."""
    paths = [a for a in args if not a.startswith("-")]
    here = os.path.realpath(os.getcwd())
    outside = [p for p in paths if os.path.isabs(p) and not os.path.realpath(p).startswith(here + os.sep)]
    if outside:
        record({"program": program, "argv": args, "action": "node-on-workstation"})
        if program == "tee":
            sys.stdin.buffer.read()
        return 0
    real = os.environ["PASTE_SYSTEM_" + program.upper()]
    os.execv(real, [program, *args])
    return 127


def main() -> int:
    program = os.path.basename(sys.argv[0])
    args = sys.argv[1:]
    if program == "kubectl":
        return kubectl(args)
    if program == "ssh":
        return ssh(args)
    if program in ("mkdir", "tee"):
        return local_file_program(program, args)
    record({"program": program, "argv": args, "action": "node-on-workstation"})  # never run here
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as exc:  # the harness's own failure, never a finding: the test stops on it
        record({"program": os.path.basename(sys.argv[0]), "argv": sys.argv[1:], "action": "shim-error"})
        print(f"{SHIM_ERROR}: {exc!r}", file=sys.stderr)
        raise
