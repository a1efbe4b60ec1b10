"""One of the repository's Python scripts as a module: their file names have dashes, so the
tests cannot import them by name."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load(path):
    """The script at `path` (absolute, or relative to the repository), run as a module."""
    path = pathlib.Path(path)
    path = path if path.is_absolute() else ROOT / path
    spec = importlib.util.spec_from_file_location(path.stem.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
