"""Where a submission's code runs (scripts/course.py grade; docs/course/README.md, "The sandbox").

A bubblewrap sandbox from Debian's package: new namespaces for everything (no network, its own
process tree that dies with it), the system's /usr and /etc read-only, the grading tree read-only
at /grading/src, and only the folders the caller names writable. As root, it first drops to the
unprivileged user nobody, so that the limit on processes counts that user's alone. Each run has a
wall-clock limit, and limits per process on memory (address space), processes and file size."""
import dataclasses
import os
import shutil
import subprocess

NOBODY = 65534
INSIDE = "/grading"   # where the grading tree and its build are, inside the sandbox


@dataclasses.dataclass
class Limits:
    """What one sandboxed run may use (the documented defaults)."""
    build_seconds: int = 1800     # wall clock for the build
    task_seconds: int = 600       # wall clock for one task's graded tests
    test_seconds: int = 120       # wall clock for one test
    memory_bytes: int = 4 << 30   # address space per process
    processes: int = 128          # processes and threads of the sandbox's user
    file_bytes: int = 1 << 30     # the largest file it may write
    tmp_bytes: int = 256 << 20    # its /tmp, in memory


class SandboxError(Exception):
    """The sandbox cannot be made on this machine: nothing of the submission ran."""


def require_sandbox():
    """Refuses to grade where bubblewrap is missing or cannot make its namespaces here."""
    if not shutil.which("bwrap"):
        raise SandboxError("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    probe = subprocess.run(command(["true"], [], 60, cwd="/"), capture_output=True, text=True)
    if probe.returncode != 0:
        raise SandboxError("bubblewrap cannot make its sandbox here (" + probe.stderr.strip() +
                           "); no submission is run outside a sandbox")


def give_to_sandbox_user(path):
    """A folder the sandbox writes must be its user's (nobody's, when the grader is root)."""
    os.makedirs(path, exist_ok=True)
    if os.geteuid() == 0:
        for folder, subfolders, names in os.walk(path):
            for name in [folder] + [os.path.join(folder, n) for n in subfolders + names]:
                os.chown(name, NOBODY, NOBODY, follow_symlinks=False)


def command(argv, mounts, seconds, environment=None, cwd=INSIDE + "/src", limits=Limits(), masked=()):
    """The command line that runs argv in the sandbox for at most `seconds` of wall clock.
    mounts: (outside, inside, writable) for each folder it sees besides the system's;
    masked: folders inside the mounts it sees empty;
    environment: the variables argv sees, besides PATH, HOME and LANG.
    As root, bubblewrap binds the folders (which nobody could not reach) and then drops to nobody,
    every capability gone; as another user, bubblewrap makes a user namespace of its own."""
    root = os.geteuid() == 0
    sandbox = ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    sandbox += [] if root else ["--unshare-user"]
    sandbox += ["--die-with-parent", "--new-session", "--clearenv", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for folder in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        sandbox += ["--ro-bind-try", folder, folder]
    sandbox += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
                "--perms", "0755", "--dir", INSIDE]
    for outside, inside, writable in mounts:
        sandbox += ["--bind" if writable else "--ro-bind", outside, inside]
    for inside in masked:
        sandbox += ["--tmpfs", inside, "--remount-ro", inside]
    variables = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
    variables.update(environment or {})
    for name, value in variables.items():
        sandbox += ["--setenv", name, str(value)]
    sandbox += ["--chdir", cwd, "--"]
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all"] if root else []
    limit = ["prlimit", f"--as={limits.memory_bytes}", f"--nproc={limits.processes}",
             f"--fsize={limits.file_bytes}", "--core=0", "--"]
    if root:
        return ["timeout", "-s", "KILL", str(seconds)] + sandbox + drop + limit + list(argv)
    return ["timeout", "-s", "KILL", str(seconds)] + limit + sandbox + list(argv)


def run(argv, tree, seconds, log_path, writable=(), read_only=(), **options):
    """Runs argv in the sandbox with the grading tree read-only at /grading/src, and writable and
    read_only's (outside, inside) folders; its output goes to log_path (the grader's file, never
    the sandbox's). Returns the exit status; 137 is the wall-clock limit (SIGKILL)."""
    mounts = [(tree, INSIDE + "/src", False)] + [(o, i, False) for o, i in read_only] + [(o, i, True) for o, i in writable]
    with open(log_path, "ab") as log:
        return subprocess.run(command(argv, mounts, seconds, **options), stdin=subprocess.DEVNULL, stdout=log,
                              stderr=subprocess.STDOUT).returncode
