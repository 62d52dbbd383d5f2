"""A PEP 517 build backend for gpuleak's Python package: two modules,
gpuleak_memory (the torch.cuda.memory look-alike) and pytest_gpuleak (the
pytest plugin, registered as entry point "gpuleak" so `pytest -p gpuleak`
and `pytest --gpuleak` find it).

In-tree and dependency-free on purpose: `pip install --no-build-isolation
tools/` must work offline, with nothing but pip (setuptools cannot build a
wheel without the separate `wheel` package).  Name and version are read from
pyproject.toml next to this directory."""
import base64
import hashlib
import os
import re
import zipfile

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_MODULES = ("gpuleak_memory.py", "pytest_gpuleak.py")
_ENTRY_POINTS = b"[pytest11]\ngpuleak = pytest_gpuleak\n"


def _meta():
    with open(os.path.join(_HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]

    def field(key):
        return re.search(r'^%s\s*=\s*"([^"]*)"' % key, project, re.M).group(1)

    return field("name"), field("version"), field("description"), field("requires-python")


def _dist(name, version):
    return "%s-%s" % (name.replace("-", "_"), version)


def _metadata_text(name, version, summary, requires):
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nRequires-Python: %s\n"
            % (name, version, summary, requires))


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (path, digest, len(data))


def _write_metadata(directory, name, version, summary, requires):
    info = os.path.join(directory, _dist(name, version) + ".dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata_text(name, version, summary, requires))
    with open(os.path.join(info, "entry_points.txt"), "wb") as f:
        f.write(_ENTRY_POINTS)
    return os.path.basename(info)


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory, *_meta())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, version, summary, requires = _meta()
    dist = _dist(name, version)
    wheel_name = dist + "-py3-none-any.whl"
    files = []
    for module in _MODULES:
        with open(os.path.join(_HERE, module), "rb") as f:
            files.append((module, f.read()))
    files += [
        (dist + ".dist-info/entry_points.txt", _ENTRY_POINTS),
        (dist + ".dist-info/METADATA", _metadata_text(name, version, summary, requires).encode()),
        (dist + ".dist-info/WHEEL",
         b"Wheel-Version: 1.0\nGenerator: gpuleak_wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = "".join(_record_line(p, d) for p, d in files) + dist + ".dist-info/RECORD,,\n"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            z.writestr(path, data)
        z.writestr(dist + ".dist-info/RECORD", record)
    return wheel_name
