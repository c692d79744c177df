"""The release artefacts: the sdist and the wheel `python -m build` makes from this tree.

Apache-2.0 §4(a) requires the licence text to travel with every copy, so LICENSE must be in
both file lists; the version is written once (docql_sqlite/version.py) and the built
metadata must say the same; numpy is an extra (a bare install does not pull it).
scripts/wheel_smoke.sh (run by .ci/run) installs the wheel and uses it.
"""

from __future__ import annotations

import email
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from docql_sqlite.version import __version__

REPO = Path(__file__).resolve().parents[1]
OFFICIAL_LICENSE = Path("/usr/share/common-licenses/Apache-2.0")

pytest.importorskip("build", reason="python -m build comes with the test group")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {"wheel": next(out.glob("*.whl")), "sdist": next(out.glob("*.tar.gz"))}


def wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def sdist_names(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as archive:
        return [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]


def wheel_metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name))


def test_license_ships_in_the_wheel_and_the_sdist(dist: dict[str, Path]) -> None:
    names = wheel_names(dist["wheel"])
    assert f"docql_sqlite-{__version__}.dist-info/licenses/LICENSE" in names
    assert "LICENSE" in sdist_names(dist["sdist"])
    with zipfile.ZipFile(dist["wheel"]) as archive:
        shipped = archive.read(f"docql_sqlite-{__version__}.dist-info/licenses/LICENSE")
    assert shipped == (REPO / "LICENSE").read_bytes()
    assert b"Apache License\n                           Version 2.0, January 2004" in shipped


@pytest.mark.skipif(not OFFICIAL_LICENSE.exists(), reason="no Debian copy of the licence here")
def test_license_is_the_official_apache_2_text() -> None:
    assert (REPO / "LICENSE").read_bytes() == OFFICIAL_LICENSE.read_bytes()


def test_metadata_declares_the_license_and_one_version(dist: dict[str, Path]) -> None:
    meta = wheel_metadata(dist["wheel"])
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert meta["Version"] == __version__  # from version.py: the only place it is written
    assert f"docql_sqlite-{__version__}" in dist["sdist"].name
    assert meta.get_all("Project-URL")
    assert "Programming Language :: Python :: 3.11" in meta.get_all("Classifier")


def test_the_wheel_holds_the_schema_and_the_templates(dist: dict[str, Path]) -> None:
    names = set(wheel_names(dist["wheel"]))
    for sql in sorted((REPO / "sql").glob("*.sql")):
        assert f"docql_sqlite/sql/{sql.name}" in names
    templates = REPO / "docql_sqlite" / "datasette_plugin" / "templates"
    for template in sorted(templates.iterdir()):
        assert f"docql_sqlite/datasette_plugin/templates/{template.name}" in names
    assert "docql_sqlite/py.typed" in names


def test_dependencies_are_capped_and_numpy_is_an_extra(dist: dict[str, Path]) -> None:
    requires = wheel_metadata(dist["wheel"]).get_all("Requires-Dist")
    base = [r for r in requires if "extra ==" not in r]
    assert not any(r.startswith("numpy") for r in base)
    assert any(r.startswith("numpy") and "extra == 'vectors'" in r for r in requires)
    for name in ("sqlite-vec", "tree-sitter", "tree-sitter-python", "tree-sitter-rust"):
        (spec,) = [r for r in base if r.split("<")[0].split(">")[0] == name]
        assert "<" in spec, f"{spec}: a pre-1.0 native dependency needs a ceiling"
    # The test, lint, benchmark and fuzz tools are dependency groups, not user extras.
    extras = set(wheel_metadata(dist["wheel"]).get_all("Provides-Extra"))
    assert not extras & {"test", "dev", "bench", "fuzz"}
