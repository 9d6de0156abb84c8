#!/usr/bin/env bash
# tests/python/run_notebook.sh PYTHON MODULE_DIR NOTEBOOK
#
# Executes a notebook of docs/notebooks/ headless, as a reader's Jupyter would, with Debian's
# `jupyter nbconvert --execute` (jupyter-nbconvert and python3-ipykernel, which scripts/test.sh
# installs): any cell that raises fails the test. It prints how long the notebook took, and holds
# no timing to a limit (the suite runs beside other tests, on machines of any speed): a cell still
# running after 10 minutes is a hang, and fails it. The kernel is PYTHON, the interpreter the module was built for, named through a
# kernel spec of its own in a temporary JUPYTER_PATH with PYTHONPATH=MODULE_DIR: never whatever
# "python3" kernel this machine has (a pyenv or venv one could not load the module); the kernel
# writes down which interpreter it is, and that is checked. The executed copy and the notebook's
# runs go to a temporary folder; the committed notebook stays without outputs. Figures are drawn as
# a reader's notebook draws them (matplotlib's inline backend), and each must come back as an image.
set -euo pipefail
python=$1
module_dir=$2
notebook=$3
hang_seconds=600

work=$(mktemp -d /tmp/tapeformer-notebook.XXXXXX)
trap '[ -n "${TF_KEEP_NOTEBOOK:-}" ] && cp "$work/executed.ipynb" "$TF_KEEP_NOTEBOOK"; rm -rf "$work"' EXIT
mkdir -p "$work/kernels/tapeformer"
cat >"$work/kernels/tapeformer/kernel.json" <<JSON
{"argv": ["$python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
 "display_name": "Python 3 (tapeformer test)", "language": "python",
 "env": {"PYTHONPATH": "$module_dir", "TAPEFORMER_RUNS": "$work/runs", "TAPEFORMER_KERNEL_RECORD": "$work/kernel-python",
         "PYDEVD_DISABLE_FILE_VALIDATION": "1"}}
JSON
# Jupyter's and matplotlib's own folders in the temporary one too: a fresh root's HOME has none.
export JUPYTER_PATH=$work JUPYTER_DATA_DIR=$work/data JUPYTER_RUNTIME_DIR=$work/runtime JUPYTER_CONFIG_DIR=$work/config
export IPYTHONDIR=$work/ipython MPLCONFIGDIR=$work/matplotlib
unset MPLBACKEND

# Which interpreter the kernel really is: a startup file of this IPython folder writes it down.
mkdir -p "$work/ipython/profile_default/startup"
cat >"$work/ipython/profile_default/startup/00-which-python.py" <<'PY'
import os, sys
with open(os.environ["TAPEFORMER_KERNEL_RECORD"], "w") as record:
    record.write(sys.executable)
PY

started=$(date +%s)
"$python" -m nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=tapeformer \
    --ExecutePreprocessor.timeout=$hang_seconds --output-dir "$work" --output executed.ipynb "$notebook"
seconds=$(($(date +%s) - started))
kernel=$(cat "$work/kernel-python" 2>/dev/null || echo "(none recorded)")
[ "$(realpath "$kernel")" = "$(realpath "$python")" ] || { echo "error: the kernel ran $kernel, not $python" >&2; exit 1; }
echo "the kernel was $kernel"
"$python" - "$work/executed.ipynb" "$notebook" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
code = [cell for cell in cells if cell["cell_type"] == "code"]
errors = [output for cell in code for output in cell.get("outputs", []) if output.get("output_type") == "error"]
unrun = [cell for cell in code if cell.get("execution_count") is None]
images = sum("image/png" in output.get("data", {}) for cell in code for output in cell.get("outputs", []))
drawn = sum("plt.show()" in "".join(cell["source"]) for cell in code)
committed = json.load(open(sys.argv[2]))["cells"]
left_in = [cell for cell in committed if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))]
problems = [f"{len(errors)} cells raised"] * bool(errors) + [f"{len(unrun)} cells did not run"] * bool(unrun)
problems += [f"{images} images for {drawn} figures"] * (images != drawn)
problems += [f"the committed notebook holds the outputs of {len(left_in)} cells: clear them"] * bool(left_in)
if problems:
    sys.exit("error: " + "; ".join(problems))
print(f"{len(code)} code cells ran without an error, drawing {images} figures")
PY
echo "the notebook ran in ${seconds} s"
