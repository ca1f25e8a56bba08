"""
Runs python-gitlab's own functional tests (tests/functional/api, from its source at a pinned release) against this
server instead of the GitLab container their conftest starts with Docker. Installed as
tests/functional/api/conftest.py of the unpacked suite, so its fixtures take precedence over those of
tests/functional/conftest.py: the server is already running (GITLAB_URL), root's token is given (GITLAB_TOKEN), and
the instance is new, so nothing is reset or waited for. Everything else (the fixtures that create users, groups,
projects and the rest) is the suite's own.
"""

import os
import time

import pytest

import gitlab


@pytest.fixture(scope="session")
def gitlab_url() -> str:
    return os.environ["GITLAB_URL"]


@pytest.fixture(scope="session")
def gitlab_token() -> str:
    return os.environ["GITLAB_TOKEN"]


@pytest.fixture(scope="session")
def gl(gitlab_url: str, gitlab_token: str) -> gitlab.Gitlab:
    # The suite's own `gl` first deletes what an earlier run against the same container left; the server is new.
    return gitlab.Gitlab(gitlab_url, private_token=gitlab_token)


@pytest.fixture(scope="session")
def gitlab_runner(gl):
    pytest.skip("registers a runner inside the GitLab container with docker exec; there is no container")


def pytest_collection_modifyitems(items):
    # python-gitlab marks test_features `skip` (since its functional tests began, without saying why). The server has
    # GitLab's Features API, which sets a flag without a YAML definition ("foo") as a production GitLab does: it runs.
    for item in items:
        if item.name == "test_features":
            item.own_markers[:] = [mark for mark in item.own_markers if mark.name != "skip"]


@pytest.fixture(autouse=True)
def no_pauses_for_merges(request, monkeypatch):
    # test_merge_requests.py pauses (30 s in make_merge_request, 5 s around each merge) "to let GL catch up" with the
    # mergeability checks and merges GitLab runs in the background; this server answers a merge once it is done, so
    # its waits would only add minutes. Its polling loops still check the outcome.
    if request.module.__name__.endswith("test_merge_requests"):
        monkeypatch.setattr(time, "sleep", lambda seconds: None)


_real_sleep = time.sleep


@pytest.fixture(scope="function")
def merge_request_with_pipeline(make_merge_request, project):
    # The suite's own fixture, and then what its 30 s and 5 s pauses waited for (no_pauses_for_merges takes them
    # away): the merge request's pipeline, which the server creates in the background once the merge request is
    # created, as GitLab's AfterCreateService does. Without it a merge "when the pipeline succeeds" finds no pipeline
    # yet and merges at once, as GitLab's would.
    import uuid

    mr = make_merge_request(source_branch=f"branch-{uuid.uuid4().hex}", create_pipeline=True)
    deadline = time.monotonic() + 60
    while not mr.pipelines.list(get_all=False):
        if time.monotonic() > deadline:
            raise AssertionError(f"merge request !{mr.iid} has no pipeline after 60 s")
        _real_sleep(0.1)
    return mr
