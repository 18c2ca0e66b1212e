"""WebAssembly for the site, compiled at build time from its readable text form (.wat) by wabt's wat2wasm.

The compiler is npm's `wabt` (pinned in package.json and installed by `npm ci`), run by Node through
wat2wasm.mjs beside this file. Its output depends on the source alone, so two builds write the same bytes.
"""
import shutil
import subprocess
from pathlib import Path

from .errors import BuildError
from .inputs import note_input

ROOT = Path(__file__).resolve().parents[2]
COMPILER = Path(__file__).with_name("wat2wasm.mjs")


def compile_wat(source):
    """The WebAssembly binary (bytes) of the .wat file `source`; a BuildError naming the file if it does not compile."""
    # Node reads these, out of the recorder's sight: the source, the compiler's script, and the wabt it pins.
    for path in (source, COMPILER, ROOT / "package-lock.json"):
        note_input(path)
    node = shutil.which("node")
    if node is None:
        raise BuildError(f"{source}: compiling WebAssembly needs Node.js (and `npm ci` for wabt)")
    result = subprocess.run([node, str(COMPILER), str(source)], cwd=ROOT, capture_output=True, timeout=120)
    if result.returncode != 0:
        message = result.stderr.decode(errors="replace").strip()
        if "Cannot find package 'wabt'" in message:
            message = "wabt is not installed: run `npm ci` (make site does)"
        raise BuildError(f"{source}: {message}")
    return result.stdout
