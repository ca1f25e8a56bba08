"""python-gitlab against the repository history API: archive, blame, a commit's diff/refs/signature/merge requests,
cherry-pick, revert, merge base, contributors, as a python-gitlab user writes it. Prints one line per check, then ok."""
import io
import os
import tarfile
import zipfile

import gitlab

gl = gitlab.Gitlab(os.environ["GITLAB_URL"], private_token=os.environ["GITLAB_TOKEN"])
project = gl.projects.create({"name": os.environ["PROJECT_NAME"]})
first = project.commits.create({"branch": "main", "commit_message": "First", "actions": [
    {"action": "create", "file_path": "a.txt", "content": "one\ntwo\n"},
    {"action": "create", "file_path": "docs/b.md", "content": "b\n"},
]})
second = project.commits.create({"branch": "main", "commit_message": "Second", "actions": [
    {"action": "update", "file_path": "a.txt", "content": "one\nTWO\n"},
]})

# Archives: bytes, listed as the formats they claim to be.
tgz = project.repository_archive()
with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tar:
    names = sorted(tar.getnames())
prefix = f"{project.path}-main-{second.id}"
assert names == [prefix, f"{prefix}/a.txt", f"{prefix}/docs", f"{prefix}/docs/b.md"], names
zipped = project.repository_archive(sha=first.id, format="zip", path="docs")
assert sorted(zipfile.ZipFile(io.BytesIO(zipped)).namelist()) == [f"{project.path}-{first.id}-{first.id}-docs/", f"{project.path}-{first.id}-{first.id}-docs/docs/", f"{project.path}-{first.id}-{first.id}-docs/docs/b.md"]
streamed = io.BytesIO()
project.repository_archive(format="tar.bz2", streamed=True, action=streamed.write)
with tarfile.open(fileobj=io.BytesIO(streamed.getvalue()), mode="r:bz2") as tar:
    assert f"{prefix}/a.txt" in tar.getnames()
print("archive")

# Blame.
blame = project.files.blame(file_path="a.txt", ref="main")
assert [(r["commit"]["id"], r["lines"]) for r in blame] == [(first.id, ["one"]), (second.id, ["TWO"])], blame
print("blame")

# A commit's diff, refs, signature, merge requests.
commit = project.commits.get(second.id)
diff = commit.diff(get_all=True)
assert [(d["new_path"], d["diff"]) for d in diff] == [("a.txt", "@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n")], diff
assert commit.refs() == [{"type": "branch", "name": "main"}], commit.refs()
assert commit.merge_requests() == []
try:
    commit.signature()
    raise AssertionError("an unsigned commit has no signature")
except gitlab.exceptions.GitlabGetError as error:
    assert error.response_code == 404 and "Signature Not Found" in str(error), error
print("commit")

# Cherry-pick and revert.
project.branches.create({"branch": "stable", "ref": first.id})
# python-gitlab's cherry_pick answers nothing; a dry run (sent as a query parameter) leaves the branch where it was.
project.commits.get(second.id).cherry_pick(branch="stable", dry_run=True)
assert project.branches.get("stable").commit["id"] == first.id
project.commits.get(second.id).cherry_pick(branch="stable")
picked = project.commits.get("stable")
assert picked.message == f"Second\n\n(cherry picked from commit {second.id})", picked.message
try:
    project.commits.get(second.id).cherry_pick(branch="stable")
    raise AssertionError("picking twice is empty")
except gitlab.exceptions.GitlabCherryPickError as error:
    assert error.response_code == 400 and "cannot cherry-pick" in str(error), error
reverted = project.commits.get(second.id).revert(branch="main")
assert reverted["title"] == 'Revert "Second"', reverted
print("cherry-pick and revert")

# Merge base and contributors.
base = project.repository_merge_base(["main", "stable"])
assert base["id"] == first.id, base
contributors = project.repository_contributors(get_all=True)
assert [(c["name"], c["commits"], c["additions"]) for c in contributors] == [("Administrator", 3, 0)], contributors
print("merge base and contributors")

project.delete()
print("python-gitlab history: ok")
