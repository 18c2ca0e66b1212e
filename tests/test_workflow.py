"""The Pages workflow (.github/workflows/pages.yml): the tests run before anything is deployed, only the deploy
job may write to Pages, and pip's downloads are cached."""
import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
WRITES = {"pages": "write", "id-token": "write"}


def granted(permissions):
    return {scope for scope, level in (permissions or {}).items() if WRITES.get(scope) == level}


def test_only_the_deploy_job_may_write_pages_or_mint_tokens():
    jobs = WORKFLOW["jobs"]
    assert not granted(WORKFLOW.get("permissions")), "the workflow grants Pages writes to every job"
    assert granted(jobs["deploy"].get("permissions")) == set(WRITES)
    for name, job in jobs.items():
        if name != "deploy":
            assert not granted(job.get("permissions")), f"job {name} may write Pages"
            assert "permissions" in job, f"job {name} inherits the defaults instead of saying what it needs"


def test_the_tests_run_before_the_site_is_uploaded_and_deployed():
    jobs = WORKFLOW["jobs"]
    assert jobs["deploy"]["needs"] in ("build", ["build"])
    steps = jobs["build"]["steps"]
    uses = [step.get("uses", "") for step in steps]
    upload = next(k for k, u in enumerate(uses) if u.startswith("actions/upload-pages-artifact"))
    test_steps = [k for k, step in enumerate(steps) if re.search(r"\bmake test(-unit)?\b|pytest", step.get("run", ""))]
    assert test_steps and test_steps[0] < upload, "no test step before the upload"
    target = re.search(r"make (test(?:-unit)?)", steps[test_steps[0]]["run"]).group(1)
    plan = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True)
    assert plan.returncode == 0, plan.stderr
    assert "-m pytest" in plan.stdout


def test_pip_downloads_are_cached_keyed_by_the_pins():
    (python,) = [s for s in WORKFLOW["jobs"]["build"]["steps"] if s.get("uses", "").startswith("actions/setup-python")]
    assert python["with"]["cache"] == "pip"
    assert {"pyproject.toml", "constraints.txt"} <= set(python["with"]["cache-dependency-path"].split())


def test_one_setting_picks_the_engine_that_builds_what_is_deployed():
    """PUBLISH_ENGINE: mkdocs or zensical. The tests run first either way; Zensical's build, when it is the one
    published, comes after them and before the upload (tests/test_engines.py has checked it against MkDocs')."""
    assert WORKFLOW["env"]["PUBLISH_ENGINE"] in ("mkdocs", "zensical"), "the workflow says which engine it publishes"
    steps = WORKFLOW["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    zensical = next(k for k, run in enumerate(runs) if "make site ENGINE=zensical" in run)
    assert steps[zensical]["if"] == "env.PUBLISH_ENGINE == 'zensical'"
    tests = next(k for k, run in enumerate(runs) if re.search(r"\bmake test(-unit)?\b", run))
    upload = next(k for k, step in enumerate(steps) if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert tests < zensical < upload, "Zensical's site is built after the tests and is what gets uploaded"
