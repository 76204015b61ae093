"""The GitHub Actions workflow a fork runs (.github/workflows/test.yml) is valid for GitHub
(checked offline against the workflow schema that check-jsonschema ships) and tests what the
suite is declared to support: every Python and every PyTorch release of releases.toml."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

from testsuite.releases import older_releases, validated_pythons

WORKFLOW = Path(__file__).resolve().parent.parent / ".github" / "workflows" / "test.yml"


def test_the_workflow_is_valid_against_githubs_schema():
    checker = Path(sys.executable).parent / "check-jsonschema"
    result = subprocess.run([str(checker), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_workflow_tests_every_python_and_release_of_releases_toml():
    matrix = yaml.safe_load(WORKFLOW.read_text())["jobs"]["test"]["strategy"]["matrix"]
    assert matrix["python"] == validated_pythons() and matrix["torch"] == [""]
    older = [(job["python"], job["torch"]) for job in matrix["include"]]
    assert older == [(validated_pythons()[0], release) for release in older_releases()]


def test_the_package_metadata_names_the_tested_pythons():
    project = tomllib.loads((WORKFLOW.parents[2] / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == f">={validated_pythons()[0]}"
    listed = [c.rsplit(" :: ", 1)[1] for c in project["classifiers"] if c.startswith("Programming Language :: Python :: 3.")]
    assert listed == validated_pythons()
