"""The files under .github/ and .pre-commit-config.yaml: valid, and doing what CONTRIBUTING.md says.

Workflows and issue forms are validated against the JSON schemas that the
``check-jsonschema`` package vendors from SchemaStore, with ``jsonschema``.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

GITHUB = REPO / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
ISSUE_FORMS = sorted(p for p in (GITHUB / "ISSUE_TEMPLATE").glob("*.yml") if p.name != "config.yml")


class Yaml12Loader(yaml.SafeLoader):
    """YAML as GitHub reads it (1.2): ``on:`` is the string "on", not the boolean true."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"] for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def load(path: Path) -> dict:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Yaml12Loader)


def vendored_schema(name: str) -> dict:
    pytest.importorskip("check_jsonschema", reason="pip install check-jsonschema (test extra)")
    path = resources.files("check_jsonschema") / "builtin_schemas" / "vendor" / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def validate(document: dict, schema_name: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = vendored_schema(schema_name)
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors)


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in steps(job))


def uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in steps(job) if "uses" in step]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_matches_the_github_schema(path):
    validate(load(path), "github-workflows")


@pytest.mark.parametrize("path", ISSUE_FORMS, ids=lambda p: p.name)
def test_issue_form_matches_the_github_schema(path):
    form = load(path)
    validate(form, "github-issue-forms")
    ids = [item["id"] for item in form["body"] if "id" in item]
    assert len(ids) == len(set(ids)), "issue form ids are unique"
    assert any(item.get("validations", {}).get("required") for item in form["body"])


def test_issue_config_matches_the_github_schema():
    validate(load(GITHUB / "ISSUE_TEMPLATE" / "config.yml"), "github-issue-config")


def test_both_issue_forms_exist():
    assert {p.name for p in ISSUE_FORMS} >= {"propose-term.yml", "report-error.yml"}
    sections = next(item for item in load(GITHUB / "ISSUE_TEMPLATE/propose-term.yml")["body"] if item.get("id") == "section")
    from glossary_tool.model import SECTIONS

    assert set(SECTIONS) <= set(sections["attributes"]["options"])


def test_ci_runs_check_tests_and_build_on_pull_requests():
    ci = load(GITHUB / "workflows" / "ci.yml")
    assert "pull_request" in ci["on"]
    assert ci["permissions"] == {"contents": "read"}
    (job,) = ci["jobs"].values()
    setup = next(step for step in steps(job) if step.get("uses", "").startswith("actions/setup-python"))
    major, minor = (int(x) for x in str(setup["with"]["python-version"]).split(".")[:2])
    assert (major, minor) >= (3, 11)
    script = runs(job)
    assert "glossary check --format github" in script
    assert "make test" in script
    assert "glossary build --strict" in script
    uploads = {step["with"]["path"]: step["with"] for step in steps(job) if step.get("uses", "").startswith("actions/upload-artifact")}
    assert uploads["site/"]["if-no-files-found"] == "error"
    assert uploads["dist/"]["if-no-files-found"] == "ignore", "the book is uploaded when it was built"


def test_makefile_has_the_target_ci_installs_with():
    ci = load(GITHUB / "workflows" / "ci.yml")
    (job,) = ci["jobs"].values()
    targets = re.findall(r"^make (\S+)", runs(job), re.M)
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    stamp = re.search(r"^STAMP\s*:=\s*(\S+)", makefile, re.M).group(1).replace("$(VENV)", re.search(r"^VENV\s*:=\s*(\S+)", makefile, re.M).group(1))
    for target in targets:
        assert target == stamp or re.search(rf"^{re.escape(target)}:", makefile, re.M), f"make {target}: no such target"


def test_gpu_verification_runs_only_on_a_maintainers_request():
    wf = load(GITHUB / "workflows" / "verify-gpu.yml")
    assert set(wf["on"]) == {"pull_request", "workflow_dispatch"}
    assert wf["on"]["pull_request"] == {"types": ["labeled"]}, "no run on push or synchronize: a label is the approval"
    assert wf["permissions"] == {}
    verify = wf["jobs"]["verify"]
    assert verify["runs-on"] == ["self-hosted", "gpu", "${{ matrix.runner }}"]
    assert "github.event.label.name == 'verify-gpu'" in verify["if"]
    assert "github.event_name == 'workflow_dispatch'" in verify["if"]
    assert verify["permissions"] == {"contents": "read"}, "contributed code runs with a read-only token"
    checkout = next(step for step in steps(verify) if step.get("uses", "").startswith("actions/checkout"))
    assert "github.event.pull_request.head.sha" in checkout["with"]["ref"], "the labelled commit, not a later push"
    assert checkout["with"]["persist-credentials"] is False
    assert "PYTHONPATH" in next(step for step in steps(verify) if "gpu-verify.sh" in step.get("run", ""))["env"]
    assert "scripts/gpu-verify.sh" in runs(verify)
    assert "secrets." not in (GITHUB / "workflows" / "verify-gpu.yml").read_text(encoding="utf-8")


def test_gpu_verification_is_a_matrix_over_the_reference_gpu_runners_merged_in_one_job():
    wf = load(GITHUB / "workflows" / "verify-gpu.yml")
    verify = wf["jobs"]["verify"]
    legs = {leg["runner"]: leg["only"] for leg in verify["strategy"]["matrix"]["include"]}
    assert legs == {"h100": "", "h200": "", "h100x2": "--multi-gpu", "h200x2": "--multi-gpu"}, "the 2-GPU nodes run only the snippets that need two GPUs"
    assert verify["strategy"]["fail-fast"] is False
    upload = next(step for step in steps(verify) if step.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["name"] == "records-${{ matrix.runner }}" and upload["if"] == "always()"
    script = (REPO / "scripts" / "gpu-verify.sh").read_text(encoding="utf-8")
    assert "--pack" in script and "gpu-records.tgz" in script
    merge = wf["jobs"]["merge"]
    assert merge["needs"] == "verify" and merge["permissions"] == {"contents": "read"}
    assert not str(merge["runs-on"]).startswith("self-hosted")
    download = next(step for step in steps(merge) if step.get("uses", "").startswith("actions/download-artifact"))
    assert download["with"]["pattern"] == "records-*"
    assert "glossary_tool verify --merge" in runs(merge)
    assert next(step for step in steps(merge) if step.get("uses", "").startswith("actions/upload-artifact"))["with"]["name"] == "snippet-records"


def test_gpu_records_are_committed_by_a_job_that_runs_nothing_from_the_branch():
    wf = load(GITHUB / "workflows" / "verify-gpu.yml")
    commit = wf["jobs"]["commit"]
    assert commit["needs"] == ["verify", "merge"]
    assert not str(commit["runs-on"]).startswith("self-hosted")
    assert commit["permissions"] == {"contents": "write", "actions": "write"}
    script = runs(commit)
    assert "git add -A snippets" in script and "git push" in script
    assert "glossary" not in script.replace("snippets", "").replace("glossary check", ""), "no tool code from the branch runs with a write token"
    assert "python" not in script and "make" not in script
    assert "$VERIFIED" in script, "refuses to commit when the branch moved after the verified commit"
    assert "gh workflow run ci.yml" in script
    assert "workflow_dispatch" in load(GITHUB / "workflows" / "ci.yml")["on"]


def test_workflow_scripts_never_interpolate_event_data():
    """``${{ github.event... }}`` inside ``run:`` is a script injection; env: and with: are safe."""
    for path in WORKFLOWS:
        for job in load(path)["jobs"].values():
            for step in steps(job):
                assert "${{" not in step.get("run", ""), f"{path.name}: {step.get('name', step.get('run'))}"


def test_pull_request_template_has_the_checklist():
    text = (GITHUB / "PULL_REQUEST_TEMPLATE.md").read_text(encoding="utf-8")
    boxes = re.findall(r"^\s*- \[ \] (.+)$", text, re.M)
    joined = " ".join(boxes).lower()
    for needle in ("primary sources", "checked each fact", "own words", "gpu", "verify-gpu", "cross-references"):
        assert needle in joined, needle


def test_pre_commit_config():
    config = load(REPO / ".pre-commit-config.yaml")
    repos = {repo["repo"]: repo for repo in config["repos"]}
    ruff = repos["https://github.com/astral-sh/ruff-pre-commit"]
    assert [hook["id"] for hook in ruff["hooks"]] == ["ruff"]
    assert re.fullmatch(r"v\d+\.\d+\.\d+", ruff["rev"])
    (hook,) = repos["local"]["hooks"]
    assert hook["language"] == "system" and hook["pass_filenames"] is False
    assert hook["entry"].split()[1:] == ["check", "--changed", "HEAD", "--no-records"]
    assert re.search(hook["files"], "glossary/device-software/warp.md") and not re.search(hook["files"], "README.md")


def test_the_schemas_reject_broken_files():
    """Guard against a validator that accepts anything."""
    broken = load(GITHUB / "workflows" / "ci.yml")
    job = next(iter(broken["jobs"].values()))
    del job["runs-on"]
    job["timeout-minute"] = 5
    with pytest.raises(AssertionError):
        validate(broken, "github-workflows")
    form = load(GITHUB / "ISSUE_TEMPLATE" / "report-error.yml")
    form["body"][0]["type"] = "checkbox"
    with pytest.raises(AssertionError):
        validate(form, "github-issue-forms")


def test_pages_deploys_main_as_github_documents_and_previews_pull_requests():
    wf = load(GITHUB / "workflows" / "pages.yml")
    assert wf["on"]["push"] == {"branches": ["main"]} and "pull_request" in wf["on"]
    assert wf["permissions"] == {"contents": "read"}, "only the deploy job may write"
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    checkout = next(step for step in steps(build) if step.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0, "page dates and the feed need the full history"
    assert checkout["with"]["persist-credentials"] is False
    by_name = {step.get("name", ""): step for step in steps(build)}
    deploy_build = next(s for n, s in by_name.items() if "(deploy)" in n)
    pr_build = next(s for n, s in by_name.items() if "(pull request)" in n)
    assert "glossary build --strict --book" in deploy_build["run"] and deploy_build["if"] == "github.event_name != 'pull_request'"
    assert "glossary build --strict" in pr_build["run"] and pr_build["if"] == "github.event_name == 'pull_request'"
    links = next(s for s in steps(build) if "test_linkcheck.py" in s.get("run", ""))
    assert links["env"]["GLOSSARY_SITE"] == "site" and "if" not in links, "the link check runs on every build"
    upload = next(s for s in steps(build) if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    preview = next(s for s in steps(build) if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["path"] == preview["with"]["path"] == "site/"
    assert upload["if"] == "github.event_name != 'pull_request'" and preview["if"] == "github.event_name == 'pull_request'"
    configure = next(s for s in steps(build) if s.get("uses", "").startswith("actions/configure-pages"))
    assert "steps.pages.outputs.base_url" in next(s for s in steps(build) if "site_url" in s.get("run", ""))["env"]["BASE_URL"] and configure["id"] == "pages"
    # GitHub's documented deploy job: Pages and OIDC token permissions, the github-pages
    # environment, one deployment at a time and none cancelled halfway.
    assert deploy["needs"] == "build" and "github.event_name != 'pull_request'" in deploy["if"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert deploy["environment"]["name"] == "github-pages" and "steps.deployment.outputs.page_url" in deploy["environment"]["url"]
    (step,) = steps(deploy)
    assert step["uses"].split("@")[0] == "actions/deploy-pages" and step["id"] == "deployment"


def test_real_site_fixture_takes_a_prebuilt_site(tmp_path, monkeypatch):
    """The Pages workflow's link check reads the site it uploads (GLOSSARY_SITE), not a second build."""
    from tests.conftest import real_site

    (tmp_path / "index.html").write_text("<html></html>")
    monkeypatch.setenv("GLOSSARY_SITE", str(tmp_path))
    assert real_site.__wrapped__(None) == tmp_path.resolve()
    monkeypatch.setenv("GLOSSARY_SITE", str(tmp_path / "missing"))
    with pytest.raises(AssertionError):
        real_site.__wrapped__(None)
