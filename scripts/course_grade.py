"""Grading a submission (scripts/course.py grade; docs/course/README.md, "Grading").

A grade takes from a submission the text of each task's region and nothing else. It writes the
grading tree from this kit with those regions in place of the stubs, the teacher's hidden tests
beside the kit's own, builds it and runs each task's graded tests in the sandbox
(course_sandbox.py), and reads the results from ctest's JUnit XML. A task's tests are the kit's:
the test cases its sources tag with the task, whatever the submission registers."""
import contextlib
import fcntl
import hashlib
import json
import lzma
import os
import re
import shutil
import stat
import subprocess
import tarfile
import tempfile
import zipfile
import zlib
import xml.etree.ElementTree as ElementTree

import course_sandbox as sandbox
from course_tree import (BUILD_OUTPUTS, ROOT, KitError, read_tasks, region_files, solution_regions,
                         student_files, write_if_changed)

HIDDEN_TESTS = "course/teacher/hidden"
BUILD_INSIDE = sandbox.INSIDE + "/src/build"   # the grading build, where the kit has build/
MAX_REGION_FILE = 4 << 20      # a source file with a region larger than this is not read
MAX_SUBMISSION_ENTRIES = 200_000
TEST_CASE = re.compile(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"([^"]*)"', re.S)


def graded_tests(tasks):
    """{task: [test case name, …]}: the kit's graded test cases, read from its test sources."""
    graded = {task: [] for task in tasks}
    sources = [os.path.join(ROOT, "tests", name) for name in sorted(os.listdir(os.path.join(ROOT, "tests")))]
    if os.path.isdir(os.path.join(ROOT, HIDDEN_TESTS)):
        sources += [os.path.join(ROOT, HIDDEN_TESTS, name) for name in sorted(os.listdir(os.path.join(ROOT, HIDDEN_TESTS)))]
    for source in sources:
        if not source.endswith(".cpp"):
            continue
        with open(source, encoding="utf-8") as f:
            for match in TEST_CASE.finditer(f.read()):
                for task in re.findall(r"\[(A\d+\.\d+)\]", match.group(2)):
                    if task in graded:
                        graded[task].append(match.group(1).replace('\\"', '"').replace("\\\\", "\\"))
    return graded


# ── What a submission is ─────────────────────────────────────────────────────

def refuse_links(folder):
    """A submission is plain files and folders: a link or a special file is refused, named."""
    strange, entries = [], 0
    for parent, subfolders, names in os.walk(folder, followlinks=False):
        if parent == folder:
            subfolders[:] = [s for s in subfolders if s != ".git"]
        for name in subfolders + names:
            entries += 1
            if entries > MAX_SUBMISSION_ENTRIES:
                raise KitError(f"{folder}: more than {MAX_SUBMISSION_ENTRIES} files; not graded")
            path = os.path.join(parent, name)
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                kind = "a symbolic link" if stat.S_ISLNK(mode) else "a special file"
                strange.append(f"{os.path.relpath(path, folder)} ({kind})")
    if strange:
        shown = "\n  ".join(strange[:20]) + (f"\n  … and {len(strange) - 20} more" if len(strange) > 20 else "")
        raise KitError(f"{folder}: a submission holds plain files only; refused, nothing of it was built:\n  {shown}")


def _safe_member(name):
    """An archive member's path, or None when it would land outside the folder."""
    parts = [part for part in name.replace("\\", "/").split("/") if part not in ("", ".")]
    if name.startswith("/") or ".." in parts or any("\0" in part for part in parts):
        return None
    return "/".join(parts)


def _unpack(archive, into):
    """The region files of an archive (zip or tar), written into `into`; a member that is a link, a
    special file or a path outside refuses the archive, named."""
    try:
        _unpack_members(archive, into)
    except (zipfile.BadZipFile, EOFError, zlib.error, lzma.LZMAError) as error:   # a member cut short or corrupt
        raise KitError(f"{archive}: a damaged archive ({error})")


def _unpack_members(archive, into):
    wanted, strange, members = set(region_files()), [], []
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                kind = (info.external_attr >> 16) & 0o170000
                path = _safe_member(info.filename)
                if path is None or (kind and kind not in (stat.S_IFREG, stat.S_IFDIR)):
                    strange.append(info.filename)
                elif not info.is_dir():
                    members.append((path, info.file_size, lambda info=info: z.open(info)))
            _copy_members(members, strange, wanted, into, archive)
        return
    try:
        with tarfile.open(archive) as t:
            for info in t.getmembers():
                path = _safe_member(info.name)
                if path is None or not (info.isfile() or info.isdir()):
                    strange.append(info.name)
                elif info.isfile():
                    members.append((path, info.size, lambda info=info: t.extractfile(info)))
            _copy_members(members, strange, wanted, into, archive)
    except tarfile.TarError as error:
        detail = str(error).splitlines()[0].rstrip(":")   # tarfile's first line, less its list of tries
        raise KitError(f"{archive}: not a zip or tar archive that can be read ({detail})")


def _copy_members(members, strange, wanted, into, archive):
    if strange:
        raise KitError(f"{archive}: a submission holds plain files only; refused: " + ", ".join(strange[:20]))
    paths = [path for path, _, _ in members]
    # A single folder around the tree (a hosting site's download) is taken off.
    tops = {path.split("/")[0] for path in paths}
    prefix = next(iter(tops)) + "/" if len(tops) == 1 and all("/" in p for p in paths) else ""
    for path, size, opener in members:
        inner = path[len(prefix):]
        if inner in wanted:
            if size > MAX_REGION_FILE:
                raise KitError(f"{archive}: {inner} is over {MAX_REGION_FILE >> 20} MiB")
            os.makedirs(os.path.join(into, os.path.dirname(inner)), exist_ok=True)
            with opener() as source, open(os.path.join(into, inner), "wb") as target:
                target.write(source.read(MAX_REGION_FILE + 1))


@contextlib.contextmanager
def submission_folder(submission):
    """The submission as a folder of plain files: itself, or an archive or a bare git repository
    unpacked into a scratch folder that goes when grading ends."""
    if os.path.isdir(submission) and not os.path.isdir(os.path.join(submission, "objects")):
        refuse_links(submission)
        yield submission
        return
    with tempfile.TemporaryDirectory(prefix="tapeformer-submission-") as scratch:
        if os.path.isdir(submission):   # a bare repository: its HEAD
            archive = os.path.join(scratch, "head.tar")
            made = subprocess.run(["git", "--git-dir", submission, "archive", "--format=tar", "-o", archive, "HEAD"],
                                  capture_output=True, text=True)
            if made.returncode != 0:
                raise KitError(f"{submission}: a folder with objects/ but not a git repository git can read: {made.stderr.strip()}")
        elif os.path.isfile(submission):
            archive = submission
        else:
            raise KitError(f"{submission}: no such folder, archive or repository")
        unpacked = os.path.join(scratch, "tree")
        os.makedirs(unpacked)
        _unpack(archive, unpacked)
        yield unpacked


def read_regions(folder, tasks):
    """The submission's regions, {path: {(task, n): lines}}, and {task: why it has none}."""
    solutions, problems = {}, {}
    for path in region_files():
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            kit_regions = solution_regions(path, f.read(), tasks)
        if not kit_regions:
            continue
        its_tasks = sorted({task for task, _ in kit_regions})
        try:
            descriptor = os.open(os.path.join(folder, path), os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(descriptor, "rb") as f:
                data = f.read(MAX_REGION_FILE + 1)
            if len(data) > MAX_REGION_FILE:
                raise KitError(f"{path} is over {MAX_REGION_FILE >> 20} MiB")
            if b"\0" in data:
                raise KitError(f"{path} holds a NUL byte")
            found = solution_regions(path, data.decode("utf-8"), tasks)
        except FileNotFoundError:
            for task in its_tasks:
                problems[task] = f"{path} is not in the submission"
            continue
        except (OSError, UnicodeDecodeError, KitError) as error:
            for task in its_tasks:
                problems[task] = f"{path} cannot be read: {error}"
            continue
        solutions[path] = {key: lines for key, lines in found.items() if key in kit_regions}
        for task, n in kit_regions:
            if (task, n) not in found:
                problems[task] = f"{path} has no region {n} of {task} (its BEGIN SOLUTION and END SOLUTION markers)"
    return solutions, problems


# ── Building and running in the sandbox ──────────────────────────────────────

def default_work_folder():
    """One grading tree per kit, kept between grades so that each rebuilds only its regions."""
    if os.environ.get("TF_COURSE_WORK"):
        return os.environ["TF_COURSE_WORK"]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(cache, "tapeformer-course", hashlib.sha1(ROOT.encode()).hexdigest()[:12])


class GradingTree:
    """work/tree (the grader's; read-only in the sandbox) and work/build (the sandbox's user's)."""

    def __init__(self, work, limits):
        self.work, self.limits = os.path.abspath(work), limits
        self.tree, self.build = os.path.join(self.work, "tree"), os.path.join(self.work, "build")

    @staticmethod
    def files(solutions):
        """{path: bytes}: the kit's student tree with these regions in place, and the hidden tests."""
        files = student_files(solutions=solutions)
        hidden = os.path.join(ROOT, HIDDEN_TESTS)
        if os.path.isdir(hidden):
            for name in sorted(os.listdir(hidden)):
                with open(os.path.join(hidden, name), "rb") as f:
                    files[f"{HIDDEN_TESTS}/{name}"] = f.read()
        return files

    def write(self, solutions):
        """The grading tree with the submission's regions in place."""
        self.write_files(self.files(solutions))

    def write_files(self, files):
        """Unchanged files keep their times, so the build recompiles only what changed."""
        for path, data in files.items():
            write_if_changed(os.path.join(self.tree, path), data)
        for parent, _, names in os.walk(self.tree):   # what an earlier grade wrote and this one lacks
            for name in names:
                path = os.path.relpath(os.path.join(parent, name), self.tree)
                if path not in files and not path.startswith(BUILD_OUTPUTS):
                    os.remove(os.path.join(parent, name))
        for path in ("scripts/setup.sh",):
            os.chmod(os.path.join(self.tree, path), 0o755)
        os.makedirs(os.path.join(self.tree, "build"), exist_ok=True)   # where the sandbox mounts the build

    def prepare(self, log_path):
        """Outside the sandbox, with the kit's own scripts: the packages and the generated data."""
        script = ('source "$1/scripts/setup.sh" && TF_PACKAGES+=("${TF_TEST_PACKAGES[@]}" bubblewrap) && '
                  'tf_install_missing && tf_prepare_data')
        with open(log_path, "ab") as log:
            if subprocess.run(["bash", "-c", script, "prepare", self.tree], stdout=log, stderr=subprocess.STDOUT).returncode:
                raise KitError(f"the grading tree's packages or data could not be made: {log_path}")
        sandbox.require_sandbox()
        sandbox.give_to_sandbox_user(self.build)
        os.makedirs(os.path.join(self.build, "Testing"), exist_ok=True)
        sandbox.give_to_sandbox_user(os.path.join(self.build, "Testing"))

    def prime(self, log_path):
        """Once per kit, before any submission's code: the grading tree with the kit's own regions
        (the teacher's code, trusted) is built in the sandbox with the grader's compiler cache
        mounted read-only. Every file that no region changes, nearly all of them, then comes from
        the objects the teacher's own build (scripts/test.sh) left there, instead of being compiled
        again: the build sits inside the tree as build/ does in the kit, so the relative paths the
        cache keys hold are the kit's. A submission's build never sees the cache."""
        kit = self.files(read_regions(ROOT, read_tasks(ROOT))[0])
        digest = hashlib.sha256(b"".join(hashlib.sha256(path.encode() + b"\0" + data).digest()
                                         for path, data in sorted(kit.items()))).hexdigest()
        stamp = os.path.join(self.work, "primed")   # the grader's, outside what the sandbox writes
        if os.path.isfile(stamp) and os.path.isfile(os.path.join(self.build, "build.ninja")):
            with open(stamp, encoding="utf-8") as f:
                if f.read() == digest:
                    return
        self.write_files(kit)
        cache_file = os.path.join(self.build, "CMakeCache.txt")
        if os.path.isfile(cache_file):   # a build made by an earlier grader at another path is started afresh
            with open(cache_file, encoding="utf-8", errors="replace") as f:
                if f"CMAKE_CACHEFILE_DIR:INTERNAL={BUILD_INSIDE}\n" not in f.read():
                    shutil.rmtree(self.build)
        self.prepare(log_path)
        cache = subprocess.run(["ccache", "-k", "cache_dir"], capture_output=True, text=True).stdout.strip() \
            if shutil.which("ccache") else ""
        settings, mounts = None, ()   # without a cache of the grader's, the kit is compiled in full
        if cache and os.path.isdir(cache):
            settings = {"CCACHE_DIR": sandbox.INSIDE + "/ccache", "CCACHE_READONLY": "true", "CCACHE_NOSTATS": "true",
                        "CCACHE_TEMPDIR": "/tmp"}
            mounts = [(cache, sandbox.INSIDE + "/ccache")]
        built, _ = self.compile(log_path, settings, mounts)
        if not built:
            raise KitError(f"the kit's own grading tree does not build (the log: {log_path})")
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(digest)

    def compile(self, log_path, cache=None, read_only=()):
        """Builds the test binary in the sandbox: whether it built, and what the build printed.
        cache: the compiler cache's settings, for prime() alone."""
        start = os.path.getsize(log_path)
        # No compiler cache for a submission: one it could write would hand its objects to the next
        # grade. The grading build itself is the cache: the next grade recompiles only what changed.
        environment = {"CMAKE_BUILD_PARALLEL_LEVEL": os.cpu_count() or 1, **(cache or {"CCACHE_DISABLE": "1"})}
        script = f'source scripts/setup.sh && tf_build {BUILD_INSIDE} -DTF_TESTS=ON -- tapeformer_tests'
        status = sandbox.run(["bash", "-c", script], self.tree, self.limits.build_seconds, log_path, read_only=read_only,
                             writable=[(self.build, BUILD_INSIDE)], environment=environment, limits=self.limits)
        with open(log_path, encoding="utf-8", errors="replace") as f:
            f.seek(start)
            return status == 0, f.read()

    def run_tests(self, task, results_folder, log_path):
        """One task's graded tests in the sandbox (the build read-only); the path of ctest's JUnit XML."""
        sandbox.give_to_sandbox_user(results_folder)
        junit = f"{sandbox.INSIDE}/results/junit.xml"
        ctest = ["ctest", "-L", f"^{re.escape(task)}$", "--timeout", str(self.limits.test_seconds),
                 "-j", str(os.cpu_count() or 1), "--output-junit", junit]
        sandbox.run(ctest, self.tree, self.limits.task_seconds, log_path, cwd=BUILD_INSIDE,
                    read_only=[(self.build, BUILD_INSIDE)],
                    writable=[(os.path.join(self.build, "Testing"), BUILD_INSIDE + "/Testing"),
                              (results_folder, sandbox.INSIDE + "/results")],
                    environment={"OMP_NUM_THREADS": 1}, limits=self.limits,   # a test has no reason to read them:
                    masked=[f"{sandbox.INSIDE}/src/{HIDDEN_TESTS}"] if os.path.isdir(os.path.join(self.tree, HIDDEN_TESTS)) else [])
        return os.path.join(results_folder, "junit.xml")


def junit_outcomes(path):
    """{test case name: (passed, what it printed)} from ctest's JUnit XML; {} when it wrote none."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(descriptor, "rb") as f:
            data = f.read(64 << 20)
        suite = ElementTree.fromstring(data)
    except (OSError, ElementTree.ParseError):
        return {}
    outcomes = {}
    for case in suite.iter("testcase"):
        failed = any(case.find(tag) is not None for tag in ("failure", "error", "skipped"))
        passed = case.get("status") == "run" and not failed
        printed = "".join(case.find("system-out").itertext()) if case.find("system-out") is not None else ""
        # ctest names a task's case "<task>:<case>" (tests/CMakeLists.txt's TEST_PREFIX)
        name = re.sub(r"^A\d+\.\d+:\s*", "", case.get("name", ""))
        outcomes[name] = (passed, printed)
    return outcomes


def _tail(text, limit=3000):
    return text if len(text) <= limit else "…\n" + text[-limit:]


def write_report(out, report):
    """out/results.json, whole or not at all (written aside, then renamed over)."""
    os.makedirs(out, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=out, prefix=".results-", suffix=".json", delete=False, encoding="utf-8") as f:
        try:
            json.dump(report, f, indent=2, ensure_ascii=False)
            f.write("\n")
            f.flush()
        except OSError:   # a full disk: the last results.json stays as it was
            os.remove(f.name)
            raise
    os.replace(f.name, os.path.join(out, "results.json"))


def zero_report(tasks, why):
    """0 points for every task: a submission that could not be graded, and why."""
    return {"score": 0, "output": why,
            "tests": [{"name": f"{task} {info['title']}", "number": task, "score": 0, "max_score": info["points"],
                       "status": "failed", "output": "not graded", "extra_data": {"passed": 0, "tests": 0}}
                      for task, info in tasks.items()],
            "extra_data": {"max_score": sum(info["points"] for info in tasks.values())}}


def ungraded_capstone(task, info, missing, tests):
    return {"name": f"{task} {info['title']}", "number": task, "score": 0, "max_score": info["points"], "status": "failed",
            "output": f"not graded: a capstone is graded once every task it needs passes ({', '.join(info['needs'])}); "
                      f"not yet: {', '.join(missing)}",
            "extra_data": {"passed": 0, "tests": tests}}


def check_out_folder(out, submission):
    """The teacher's results folder: made, writable, and outside the submission."""
    out = os.path.abspath(out)
    real_out, real_submission = os.path.realpath(out), os.path.realpath(submission)
    if real_out == real_submission or real_out.startswith(real_submission + os.sep):
        raise KitError(f"--out {out}: inside the submission; grades go to a folder of the teacher's")
    try:
        os.makedirs(out, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".probe-"):
            pass
    except OSError as error:
        raise KitError(f"--out {out}: cannot write there ({error.strerror}); nothing was graded")
    return out


@contextlib.contextmanager
def locked(work):
    """One grader at a time per grading tree (another process waits, and says so)."""
    os.makedirs(work, mode=0o700, exist_ok=True)
    with open(os.path.join(work, "lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"course: another grade is using {work}; waiting for it", flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def grade(submission, out, work=None, limits=None, quiet=False):
    """Grades one submission into out/results.json (Gradescope's format), out/build.log and
    out/regions.txt (the region texts it graded). Returns the report."""
    tasks = read_tasks(ROOT)
    out = check_out_folder(out, submission)
    limits = limits or sandbox.Limits()
    work = work or default_work_folder()
    build_log, expected = os.path.join(out, "build.log"), graded_tests(tasks)
    with open(build_log, "w"):
        pass
    try:
        with submission_folder(submission) as folder:
            solutions, problems = read_regions(folder, tasks)
    except KitError as error:   # refused: it still gets its 0-point results.json, saying why
        write_report(out, zero_report(tasks, str(error)))
        raise
    with open(os.path.join(out, "regions.txt"), "w", encoding="utf-8") as f:
        for path, regions in solutions.items():
            for (task, n), lines in regions.items():
                f.write(f"── {task} ({path}, region {n}) ──\n" + "\n".join(lines) + "\n")
    with locked(work):
        grading = GradingTree(work, limits)
        grading.prime(build_log)
        grading.write(solutions)
        grading.prepare(build_log)
        (built, printed), uncompiled = grading.compile(build_log), {}
        while not built:   # a region file that does not compile is graded with its stubs
            failing = {path: printed[match.start():] for path in solutions
                       for match in [re.search(rf"FAILED: \S*{re.escape(path)}\.o", printed)] if match}
            if not failing:
                break
            for path, error in failing.items():
                for task, _ in solutions.pop(path):
                    uncompiled[task] = f"{path} does not compile with the submission's regions:\n" + _tail(error, 1500)
            grading.write(solutions)
            built, printed = grading.compile(build_log)
        results, full = [], set()
        for task, info in tasks.items():
            outcomes, missing = {}, [need for need in info["needs"] if need not in full]
            if missing:   # a capstone is graded once every task it needs passes
                results.append(ungraded_capstone(task, info, missing, len(expected[task])))
                continue
            if built:
                results_folder = os.path.join(work, "results", task)
                shutil.rmtree(results_folder, ignore_errors=True)
                outcomes = junit_outcomes(grading.run_tests(task, results_folder, os.path.join(out, "tests.log")))
            names = expected[task]
            passed = [name for name in names if outcomes.get(name, (False, ""))[0]]
            notes = [problems[task]] if task in problems else []
            notes += [uncompiled[task]] if task in uncompiled else []
            for name in names:
                if name not in outcomes and built:
                    notes.append(f"not passed: {name} (it did not run, or ran past {limits.test_seconds} s)")
                elif name not in passed and built:
                    notes.append(f"not passed: {name}\n" + _tail(outcomes[name][1], 1500))
            points = info["points"] * len(passed) / len(names) if names else 0.0
            results.append({"name": f"{task} {info['title']}", "number": task, "score": round(points, 2),
                            "max_score": info["points"], "status": "passed" if names and len(passed) == len(names) else "failed",
                            "output": f"{len(passed)} of {len(names)} graded tests passed" + "".join("\n" + n for n in notes),
                            "extra_data": {"passed": len(passed), "tests": len(names)}})
            if names and len(passed) == len(names):
                full.add(task)
    with open(build_log, encoding="utf-8", errors="replace") as f:
        build_output = f.read()
    report = {"score": round(sum(r["score"] for r in results), 2),
              "output": "built" if built else "the submission does not build:\n" + _tail(build_output),
              "tests": results, "extra_data": {"max_score": sum(info["points"] for info in tasks.values())}}
    write_report(out, report)
    if not quiet:
        print_table(report)
        print(f"grades: {os.path.join(out, 'results.json')}")
    return report


def print_table(report):
    print(f"{'task':<6} {'title':<40} {'tests passed':>12} {'points':>8}")
    for r in report["tests"]:
        title = r["name"].split(" ", 1)[1]
        print(f"{r['number']:<6} {title:<40} {r['extra_data']['passed']:>5} of {r['extra_data']['tests']:<4} "
              f"{r['score']:>5.1f}/{r['max_score']}")
    print(f"{'total':<47} {report['score']:>14.1f}/{report['extra_data']['max_score']}")
    if report["output"] != "built":
        print(report["output"])
