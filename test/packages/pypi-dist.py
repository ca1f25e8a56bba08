"""Writes a tiny wheel and sdist of one module, as `python -m build` would: python3 pypi-dist.py OUT NAME VERSION REQUIRES_PYTHON VALUE.

The wheel carries METADATA, WHEEL and a RECORD of every file's urlsafe-base64 SHA-256; the sdist its PKG-INFO and a
pyproject.toml naming an in-tree PEP 517 backend that needs nothing installed, so pip prepares its metadata offline.
The module (NAME with `-` and `.` as `_`) holds `VALUE = "<VALUE>"`, so an install can be told apart.
"""
import base64
import hashlib
import io
import re
import sys
import tarfile
import zipfile

out, name, version, requires_python, value = sys.argv[1:6]
dist = re.sub(r"[-_.]+", "_", name)
module = dist.lower()

metadata = (
    "Metadata-Version: 2.1\n"
    f"Name: {name}\n"
    f"Version: {version}\n"
    "Summary: A package of the PyPI registry's tests\n"
    f"Requires-Python: {requires_python}\n"
    "\n"
)
source = f'VALUE = "{value}"\n'


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


info = f"{dist}-{version}.dist-info"
files = {
    f"{module}/__init__.py": source.encode(),
    f"{info}/METADATA": metadata.encode(),
    f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: pypi-dist\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    f"{info}/top_level.txt": f"{module}\n".encode(),
}
record = "".join(record_line(path, data) for path, data in files.items()) + f"{info}/RECORD,,\n"
files[f"{info}/RECORD"] = record.encode()
with zipfile.ZipFile(f"{out}/{dist}-{version}-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as wheel:
    for path, data in files.items():
        wheel.writestr(path, data)

root = f"{dist}-{version}"
pyproject = '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
backend = f"""import os
import shutil


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = "{info}"
    os.makedirs(os.path.join(metadata_directory, info))
    shutil.copy("PKG-INFO", os.path.join(metadata_directory, info, "METADATA"))
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise NotImplementedError("the tests install the published wheel")
"""
with tarfile.open(f"{out}/{root}.tar.gz", "w:gz") as sdist:
    for path, data in {
        f"{root}/PKG-INFO": metadata.encode(),
        f"{root}/pyproject.toml": pyproject.encode(),
        f"{root}/backend.py": backend.encode(),
        f"{root}/{module}/__init__.py": source.encode(),
    }.items():
        member = tarfile.TarInfo(path)
        member.size = len(data)
        member.mtime = 0
        sdist.addfile(member, io.BytesIO(data))
