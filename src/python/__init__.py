"""tapeformer from Python: train, load, decode and take apart runs (docs/python.md).

Built by CMake into build/python/; use it with PYTHONPATH=build/python and Debian's /usr/bin/python3.
"""
import os as _os

# OpenMP threads that spin while they wait take the cores from everything else on the machine (a
# notebook's other work, a build); the CLI makes them sleep (docs/design.md, "Threads and a busy
# machine"). libgomp reads this when it is loaded, which importing _core does: so it is set first,
# unless the environment already chose (OMP_WAIT_POLICY=active spins).
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from ._core import *  # noqa: E402,F401,F403  (every public name of the compiled module)
from ._core import __doc__ as _compiled_doc, __version__  # noqa: E402,F401
